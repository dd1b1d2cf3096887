import type { ChannelInspection } from '../../../engine';
import type { UserExport } from '../../../engine';
import { PrivacyLevel } from '../../../engine';
import { type CliCommand, discordId, jsonOption, print, printJson } from '../command';
import { UsageError } from '../errors';
import { count, exportedLine, place, shown, storedLine, time } from '../format';

export const inspectCommand: CliCommand = {
	name: 'inspect',
	summary: 'What memory holds about a member, or in a channel',
	help: `Usage: sapphire-memory inspect --user <id> [--json]
       sapphire-memory inspect --channel <id> [--server <id>] [--limit <n>] [--json]

--user: what /session export would give the member, as readable text: their settings, each of their
short-term conversations with its messages, their messages in shared channel memories, how many
archived messages are theirs and of when, their profile and topic notes.

--channel: the channel's live memory, every persona's (the server scope in a guild, the member's
scope in a DM): its recent messages, summary, digest and background summary, and its archive's size
and newest messages. It scans the store's keys.

Options:
  --user <id>      A member's Discord user id
  --channel <id>   A channel's id
  --server <id>    Only the channel's memory in this server
  --limit <n>      Archived messages to show per scope (default 10)
  --json           Print the same as JSON`,
	options: { user: { type: 'string' }, channel: { type: 'string' }, server: { type: 'string' }, limit: { type: 'string' }, ...jsonOption },
	async run(values, open) {
		const user = discordId(values, 'user', 'inspect');
		const channel = discordId(values, 'channel', 'inspect');
		const server = discordId(values, 'server', 'inspect');
		if (!user === !channel) throw new UsageError('inspect needs either --user <id> or --channel <id>.', 'inspect');
		if (user && values.server !== undefined) throw new UsageError('--server goes with --channel, not --user.', 'inspect');
		const limit = values.limit === undefined ? 10 : Number(values.limit);
		if (!Number.isInteger(limit) || limit < 0) throw new UsageError(`--limit takes a whole number, not "${values.limit}".`, 'inspect');
		const memory = await open();
		if (user) {
			const summary = userInspection(await memory.exportUser(user));
			if (values.json) printJson(summary);
			else print(userText(summary));
			return 0;
		}
		const inspection = await memory.inspectChannel({
			channelId: channel!,
			...(server === undefined ? {} : { serverId: server }),
			latest: limit
		});
		if (values.json) printJson(inspection);
		else print(channelText(inspection));
		return 0;
	}
};

/** The export, its archive reduced to a count and a span. */
function userInspection(exported: UserExport) {
	const { archive, exportedAt, schemaVersion, ...rest } = exported;
	const times = archive.map((message) => Date.parse(message.at));
	return {
		...rest,
		archive: {
			messages: archive.length,
			oldest: times.length > 0 ? new Date(Math.min(...times)).toISOString() : null,
			newest: times.length > 0 ? new Date(Math.max(...times)).toISOString() : null
		}
	};
}

function userText(user: ReturnType<typeof userInspection>): string {
	const lines = [
		`User ${user.userId} · privacy ${PrivacyLevel[user.settings.privacyLevel]!.toLowerCase()} · cross-server memory ` +
			`${user.settings.crossServerOptIn ? 'on' : 'off'}`
	];
	if (user.settings.clearedBefore) lines.push(`Short-term memory cleared before ${time(user.settings.clearedBefore)}`);
	if (user.settings.erasedBefore) lines.push(`Everything erased before ${time(user.settings.erasedBefore)}`);
	lines.push('', `Short-term conversations (${user.shortTerm.length}):`);
	for (const entry of user.shortTerm) {
		lines.push(`  ${place(entry)} · updated ${time(entry.lastUpdated)} · forgotten at ${time(entry.expiresAt)}`);
		lines.push(...entry.messages.map((message) => exportedLine(message)));
		if (entry.summary) lines.push(`    Summary: ${shown(entry.summary)}`);
		for (const [name, text] of Object.entries(entry.categories ?? {})) lines.push(`    Category ${shown(name)}: ${shown(text)}`);
	}
	lines.push('', `Their messages and the replies to them in shared channel memories (${user.sharedShortTerm.length}):`);
	lines.push(...user.sharedShortTerm.map((message) => `${exportedLine(message, '  ')}  [${place(message)}]`));
	lines.push(
		'',
		`Archive: ${count(user.archive.messages)} messages (theirs, and the personas' replies to them), oldest ${time(user.archive.oldest)}, ` +
			`newest ${time(user.archive.newest)}`
	);
	if (user.profile) {
		lines.push('', `Profile (updated ${time(user.profile.updatedAt)}):`);
		for (const [name, value] of Object.entries(user.profile.preferences)) lines.push(`  preference ${shown(name)}: ${shown(value)}`);
		for (const note of user.profile.notes) lines.push(`  note: ${shown(note)}`);
		if (user.profile.tags.length > 0) lines.push(`  tags: ${user.profile.tags.map(shown).join(', ')}`);
	} else lines.push('', 'Profile: none');
	lines.push('', `Topic notes (${user.topics.length}):`);
	lines.push(
		...user.topics.map((topic) => `  topic ${shown(topic.slug)} "${shown(topic.title)}" (updated ${time(topic.updatedAt)}): ${shown(topic.note)}`)
	);
	return lines.join('\n');
}

function channelText(inspection: ChannelInspection): string {
	const where = `channel ${inspection.channelId}${inspection.serverId ? ` in server ${inspection.serverId}` : ''}`;
	if (inspection.scopes.length === 0) return `Nothing is remembered of ${where}.`;
	const lines = [`The live memory of ${where}: ${inspection.scopes.length} ${inspection.scopes.length === 1 ? 'scope' : 'scopes'}`];
	for (const scope of inspection.scopes) {
		const at = place({ serverId: scope.serverId, channelId: inspection.channelId, personaId: scope.personaId });
		const member = scope.userId ? ` · member ${shown(scope.userId)}` : '';
		lines.push('', `${shown(scope.key)}  (${at}${member})`);
		const { entry, archive } = scope;
		if (entry) {
			lines.push(`  Recent messages (${entry.messages.length}), updated ${time(entry.lastUpdated)}, forgotten at ${time(entry.expiresAt)}:`);
			lines.push(...entry.messages.map((message) => storedLine(message)));
			if (entry.summary) lines.push(`  Summary: ${shown(entry.summary)}`);
			for (const [name, text] of Object.entries(entry.categories ?? {})) lines.push(`  Category ${shown(name)}: ${shown(text)}`);
			if (entry.digest.length > 0)
				lines.push(
					`  Digest (${entry.digest.length} lines):`,
					...entry.digest.map((line) => `    [${time(line.ts)}] digest: ${shown(line.text)}`)
				);
			if (entry.backgroundSummary) {
				const summary = entry.backgroundSummary;
				lines.push(
					`  Background summary (${shown(summary.model)}, ${time(summary.createdAt)}${summary.stale ? ', stale' : ''}):`,
					...summary.text.split('\n').map((line) => `    - ${shown(line)}`)
				);
			}
		} else lines.push('  No short-term entry (expired or cleared).');
		lines.push(
			`  Archive: ${count(archive.messages)} messages, oldest ${time(archive.oldest)}, newest ` +
				`${time(archive.newest)}${archive.latest.length > 0 ? `; the newest ${archive.latest.length}:` : ''}`
		);
		lines.push(...archive.latest.map((message) => storedLine(message)));
	}
	return lines.join('\n');
}
