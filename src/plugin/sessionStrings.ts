/**
 * Every text of `/session`, in English: the command's descriptions, its subcommand, option and choice names, and every
 * answer. A host overrides any of them per Discord locale with the plugin option `sessionStrings`, or translates them in
 * the `memory` namespace of @sapphire/plugin-i18next (`languages/fr/memory.json`: `{ "status": { "heading": "…" } }`).
 * `{{name}}` is filled in, as i18next does; `{{command}}` is the command's name (`session` unless the host renamed it).
 */
// Not `as const`: the declarations then carry each key with the type `string`, not its English text twice over.
export const SESSION_STRINGS = {
	// The command's own name: `sessionCommandName` in English; a locale's text here is its name in that locale.
	'command.name': 'session',
	'command.description': 'See and manage what this bot remembers about you',
	'status.name': 'status',
	'status.description': 'What is remembered about you, and for how long',
	'clear.name': 'clear',
	'clear.description': 'Forget your recent conversations, or everything about you',
	'clear.scope.name': 'scope',
	'clear.scope.description': 'What to forget',
	'clear.scope.shortTerm': 'recent conversations',
	'clear.scope.all': 'everything about me',
	'profile.name': 'profile',
	'profile.description': 'Your stored profile and topic notes',
	'forget.name': 'forget',
	'forget.description': 'Delete one of your topic notes or profile notes',
	'forget.topic.name': 'topic',
	'forget.topic.description': 'The topic or note',
	'export.name': 'export',
	'export.description': 'Download everything stored about you as JSON',
	'privacy.name': 'privacy',
	'privacy.description': 'Choose what is remembered about you',
	'privacy.level.name': 'level',
	'privacy.level.description': 'minimal: everything; partial: no profile; full: nothing at all',
	'privacy.level.minimal': 'minimal',
	'privacy.level.partial': 'partial',
	'privacy.level.full': 'full',
	'privacy.crossServer.name': 'cross_server',
	'privacy.crossServer.description': 'Let personas recall what you said in other servers and DMs',
	'help.name': 'help',
	'help.description': 'How memory works here',
	'wipe.name': 'wipe-channel',
	'wipe.description': 'Moderators: forget everything remembered in a channel',
	'wipe.channel.name': 'channel',
	'wipe.channel.description': 'The channel (this one by default)',

	'reply.unknownSubcommand': 'Unknown subcommand. Try `/{{command}} help`.',
	'reply.malformed': 'Those options are not what `/{{command}}` takes ({{detail}}) Nothing was changed; `/{{command}} help` lists the commands.',
	'reply.unavailable': 'Memory is unavailable right now; nothing was changed. Try again in a moment.',
	'reply.cooldown': 'You just ran `/{{command}} {{subcommand}}`: try again {{when}}. Nothing was done this time.',

	'status.heading': '**Your memory**',
	'status.privacy': 'Privacy level: **{{level}}**',
	'status.crossServerOn': ' · cross-server memory on',
	'status.counts': 'Short-term conversations: {{entries}} · archived messages you wrote: {{archived}}',
	'status.profile': 'Profile: {{profile}} · topic notes: {{topics}}',
	'status.sources': 'Replies whose memories **{{sources}}** can show: {{count}} (message ids only, kept {{shortTermHours}} h)',
	'status.yes': 'yes',
	'status.none': 'none',
	'status.channel': 'This channel: {{messages}} recent messages{{summary}}, forgotten in {{expiresIn}}',
	'status.channelSummary': ' and a summary',
	'status.channelEmpty': 'This channel: nothing remembered right now',
	'status.storage': 'Storage: {{storage}} · recent messages kept {{shortTermHours}} h, summaries {{summaryHours}} h, archive {{archiveDays}} days',
	'status.botWide.line':
		'Bot-wide: {{turns}} turns captured ({{skipped}}), {{contexts}} contexts{{contextsFailed}}, capture p50 {{captureP50}} / p99 ' +
		'{{captureP99}}, context p50 {{contextP50}} / p99 {{contextP99}}, store: {{store}}',
	'status.botWide.noneSkipped': 'none skipped',
	'status.botWide.skipped': '{{count}} skipped: {{reasons}}',
	'status.botWide.failed': '; {{count}} failed',
	'status.botWide.contextsFailed': ' ({{count}} failed)',
	'status.botWide.up': 'up',
	'status.botWide.down': 'down',
	'duration.expired': 'expired',
	'duration.minutes': '{{minutes}} min',
	'duration.hours': '{{hours}} h',
	'duration.hoursMinutes': '{{hours}} h {{minutes}} min',

	'clear.done':
		'Forgot your recent conversations: {{entries}} of your conversations, and {{messages}} messages (yours, and the personas’ ' +
		'replies to you) from shared channels’ recent memory.\nStill kept: {{archive}}the summaries personas wrote of shared channels, ' +
		'and your profile and topic notes. `/{{command}} clear scope:all` forgets those too.',
	'clear.archiveKept': 'your older messages in the archive (searchable for {{days}} days after they were sent), ',
	'clear.unknownScope': 'Unknown scope "{{scope}}". Use short-term or all.',
	'clear.confirm': 'This deletes everything memory holds about you: {{erases}}. It cannot be undone. The buttons expire {{expires}}.',
	'clear.confirmButton': 'Forget everything',
	erasesEverything:
		'recent conversations, the messages you wrote and the personas’ replies to them (in every channel’s memory and archive), ' +
		'summaries built from them, your profile and topic notes',

	'confirm.cancelButton': 'Cancel',
	'confirm.notYours': 'This confirmation belongs to someone else.',
	'confirm.cancelled': 'Cancelled: nothing was deleted or changed.',
	'confirm.expired': 'This confirmation expired: nothing was deleted or changed. Run `{{again}}` again.',
	'confirm.unavailable': 'Memory is unavailable right now; nothing was deleted. Try again in a moment.',
	'confirm.clearAllDone':
		'Done: everything memory held about you is gone (entries deleted: {{entriesDeleted}}, messages removed: {{messagesRemoved}}, ' +
		'archived messages removed: {{archivedMessagesRemoved}}, summaries dropped: {{summariesDropped}}, topics deleted: {{topicsDeleted}}).',
	'confirm.privacyFullDone': 'Done: everything memory held about you is gone, and your privacy level is **{{level}}**: {{explained}}.',

	'export.done': 'Here is everything this bot’s memory holds about you, as a JSON file compressed with gzip (any archive tool opens it).',
	'export.parts':
		'Everything this bot’s memory holds about you is more than Discord lets me send in one file, so it comes in {{parts}} parts, ' +
		'in {{messages}} messages. Each part is a JSON file compressed with gzip that you can open on its own; part 1 holds your ' +
		'settings and profile, and each list (`shortTerm`, `sharedShortTerm`, `archive`, `topics`) goes on from one part to the next.',
	'export.tooLarge':
		'Everything this bot’s memory holds about you is more than I can send here. Nothing was changed; the bot’s operators ' +
		'can export it all for you with `sapphire-memory export`.',

	'pages.previous': '◀',
	'pages.next': '▶',
	'pages.position': '{{page}} / {{pages}}',
	'pages.notYours': 'These pages belong to someone else. `{{again}}` shows your own.',
	'pages.expired': 'These pages expired after {{minutes}} minutes. Run `{{again}}` to see them again.',
	'pages.asFile': 'This is {{pages}} pages long, so here it is whole as a text file.',

	'help.text':
		'**/{{command}}**: your memory with this bot. Only you see these answers.\n' +
		'`/{{command}} status`: what is remembered about you and for how long\n' +
		'`/{{command}} clear`: forget your recent conversations (it says what it keeps)\n' +
		'`/{{command}} clear scope:all`: forget everything about you (asks to confirm)\n' +
		'`/{{command}} profile`: your stored profile and topic notes\n' +
		'`/{{command}} forget topic:<name>`: delete one topic note\n' +
		'`/{{command}} export`: download all your data as a compressed JSON file\n' +
		'`/{{command}} privacy level:<minimal|partial|full> cross_server:<true|false>`: choose what is remembered\n' +
		'  (`full` forgets everything about you first, and asks to confirm)\n' +
		'`/{{command}} wipe-channel`: moderators only, forget a channel’s memory\n' +
		'On a message, in the Apps menu: **{{forgetMessage}}** (your own message, or the persona’s reply to you), ' +
		'**{{rememberMessage}}** (keep it in your profile) and, on a persona’s reply, **{{contextSources}}** (the memories it drew on)',

	'apps.forget.name': 'Forget this message',
	'apps.remember.name': 'Remember this',
	'apps.forget.forgotten':
		'Forgotten: memory holds nothing of this message any more, nor of the persona’s replies to it, and will not store it ' +
		'again. It stays on Discord.',
	'apps.forget.forgottenReply': 'Forgotten: memory holds nothing of this reply any more, and will not store it again. It stays on Discord.',
	'apps.forget.notYours':
		'This message is not yours, so memory keeps it: you can have it forget your own messages and the persona’s replies to ' +
		'you (moderators, any message). Nothing was changed.',
	'apps.forget.notStored': 'Memory holds nothing of this message, and nothing says it is yours. Nothing was changed.',
	'apps.remember.remembered': 'Kept in your profile: “{{note}}”. `/{{command}} profile` shows it.',
	'apps.remember.notMinimal':
		'Your privacy level is {{level}}, so memory keeps no profile about you. `/{{command}} privacy level:minimal` lets it.',
	'apps.remember.notYours': 'You can keep your own messages and the persona’s replies to you, not this one. Nothing was kept.',
	'apps.remember.notStored': 'Memory holds no copy of this message to keep. Nothing was kept.',
	'apps.remember.empty': 'This message has no text to keep. Nothing was kept.',
	'apps.sources.name': 'What did you remember?',
	'apps.sources.heading': 'What memory gave the persona for this reply ({{built}}):',
	'apps.sources.tier.summary': 'Summaries and other channels',
	'apps.sources.tier.relevant': 'Older messages it found relevant',
	'apps.sources.tier.recent': 'The recent conversation',
	'apps.sources.nothingDrawn': 'Memory gave the persona no stored messages for this reply.',
	'apps.sources.notKept':
		'Memory keeps no record of what this reply drew on: it keeps one for {{hours}} hours, for the persona’s replies to ' +
		'whoever asked, and forgets it when they clear their memory.',
	'apps.sources.more': '…and {{count}} more.',
	'apps.sources.hidden': '{{count}} from channels you cannot view, or other members’ messages from elsewhere: not shown.',
	'apps.sources.gone': '{{count}} no longer in memory (deleted, forgotten or expired).',
	'apps.sources.forgetButton': 'Forget {{number}}',
	'apps.sources.forgottenButton': 'Forgotten {{number}}',
	'apps.sources.forgottenLine': '*forgotten*',
	'apps.sources.notForgotten': 'That message is not yours to forget, or memory no longer holds it. Nothing was changed.',

	'privacy.explained.minimal': 'conversations are remembered, and so are a profile and topic notes about you',
	'privacy.explained.partial': 'conversations are remembered, but no profile or topic notes about you',
	'privacy.explained.full': 'you are invisible: nothing you say is remembered, and your messages are left out of everyone’s memory',
	'privacy.unknownLevel': 'Unknown privacy level "{{level}}". Choose minimal, partial or full.',
	'privacy.hostDecides':
		'This bot sets your privacy level itself: it is **{{level}}**: {{explained}}. Nothing was changed; ask the bot’s owners how to change it.',
	'privacy.confirmFull':
		'Choosing **full** makes you invisible to memory from now on, and first deletes everything it holds about you: {{erases}}. It ' +
		'cannot be undone. The buttons expire {{expires}}.',
	'privacy.confirmFullButton': 'Forget everything and go full',
	'privacy.current': 'Privacy level: **{{level}}**: {{explained}}.\nCross-server memory: **{{crossServer}}**{{crossServerExplained}}.',
	'privacy.on': 'on',
	'privacy.off': 'off',
	'privacy.crossServerExplained': ' (personas may recall what you said in other servers and DMs)',

	'profile.nothing': 'No profile or topic notes are stored about you.',
	'profile.heading': '**Your profile**',
	'profile.tags': 'Tags: {{tags}}',
	'profile.notesHeading': 'Notes (remove one with `/{{command}} forget`):',
	'profile.topicsHeading': '**Topic notes** (remove one with `/{{command}} forget`)',
	'forget.nameOne': 'Name a topic from the list (start typing to see yours).',
	'forget.done': 'Forgot the topic `{{topic}}`.',
	'forget.noteChoice': 'Note: {{note}}',
	'forget.noteDone': 'Forgot the note “{{note}}”.',
	'forget.noteUnknown': 'That note is no longer in your profile. `/{{command}} profile` lists yours.',
	'forget.unknown': 'You have no topic `{{topic}}`. `/{{command}} profile` lists yours.',

	'wipe.onlyInServer': 'Channel memory can only be wiped in a server.',
	'wipe.unseen': 'I cannot see that channel. Pick one from the list; nothing was wiped.',
	'wipe.otherServer': '<#{{channel}}> is not in this server; nothing was wiped.',
	'wipe.wrongType': 'Only text and announcement channels and threads hold memory; <#{{channel}}> is not one, so nothing was wiped.',
	'wipe.moderatorsOnly': 'Only moderators ({{permissions}}) can wipe a channel’s memory.',
	'wipe.done': 'Forgot <#{{channel}}>: {{entries}} conversations and {{messages}} archived messages.'
};

/** The key of one `/session` text. */
export type SessionStringKey = keyof typeof SESSION_STRINGS;

/** Texts a host gives in place of the English ones, by Discord locale (`fr`, `de`, `pt-BR`, `en-US`…). */
export type SessionStringOverrides = Partial<Record<string, Partial<Record<SessionStringKey, string>>>>;
