import '../../src/register';
import { gunzipSync } from 'node:zlib';
import { container } from '@sapphire/framework';
import { ApplicationCommandOptionType, ButtonStyle, ComponentType, InteractionResponseType, MessageFlags, type TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handleRememberTool, PrivacyLevel, type UserExport } from '../../src';
import type { CommandOptionsInput, FakeInteraction } from '../../tools/fake-discord';
import {
	confirmedSession,
	converse,
	ALICE,
	BOB,
	CAROL,
	DAVE,
	ephemeralAnswer,
	GENERAL,
	GUILD_ID,
	type MemoryBot,
	RANDOM,
	remember,
	startMemoryBot,
	THREAD
} from '../support/memory-bot';

describe('/session: members see and manage their own memory, and only theirs', () => {
	let bot: MemoryBot;

	beforeAll(async () => {
		// Members here run each subcommand many times in a row; the cooldowns have their own suite (session-cooldowns).
		bot = await startMemoryBot({ sessionCooldowns: false });
	});

	afterAll(() => bot?.stop());

	/** A member runs `/session <subcommand>`; resolves with the bot's answer, asserted ephemeral. */
	function session(user: string, subcommand: string, options?: CommandOptionsInput, channelId = GENERAL) {
		return ephemeralAnswer(bot.fake, bot.fake.slashCommand({ name: 'session', subcommand, ...(options ? { options } : {}), user, channelId }));
	}

	const texts = (messages: { text: string }[] | undefined) => (messages ?? []).map((message) => message.text);

	/** What autocomplete offers a member who typed `typed` into `/session forget`. */
	async function choices(user: string, typed: string) {
		const interaction = bot.fake.autocomplete({
			name: 'session',
			subcommand: 'forget',
			options: { topic: typed },
			focused: 'topic',
			user,
			channelId: GENERAL
		});
		return ((await bot.fake.waitForAnswer(interaction.id)).data as { choices: { name: string; value: string }[] }).choices;
	}

	describe('GIVEN /session help', () => {
		it('THEN the member gets an ephemeral guide naming every subcommand', async () => {
			const { content } = await session(DAVE.id, 'help');

			for (const subcommand of ['status', 'clear', 'clear scope:all', 'profile', 'forget', 'export', 'privacy', 'wipe-channel'])
				expect(content).toContain(`/session ${subcommand}`);
		});
	});

	describe('GIVEN /session privacy', () => {
		it('WHEN Dave picks level:full THEN he is asked first, cancelling changes nothing, and confirming erases everything of his', async () => {
			await converse(bot, DAVE.id, RANDOM, 'dave: my bike lock code is LOCK-4471');
			const asked = bot.fake.slashCommand({
				name: 'session',
				subcommand: 'privacy',
				options: { level: 'full' },
				user: DAVE.id,
				channelId: GENERAL
			});
			const { content, data } = await ephemeralAnswer(bot.fake, asked);
			expect(content).toContain('first deletes everything it holds about you');
			expect(content).toContain('the personas’ replies to them');
			const [confirm, cancel] = (data.components as { components: { custom_id: string }[] }[])[0]!.components;
			expect(confirm!.custom_id).toMatch(new RegExp(`^memory:privacy-full:confirm:${DAVE.id}:\\d+$`));
			const messageId = String(bot.fake.originalMessage(asked.id)!.id);
			const cancelled = await bot.fake.waitForInteractionResponse(
				bot.fake.clickButton({ customId: cancel!.custom_id, messageId, user: DAVE.id }).id
			);
			expect(cancelled.body).toMatchObject({ data: { content: 'Cancelled: nothing was deleted or changed.' } });
			expect((await container.memory.getUserSettings(DAVE.id)).privacyLevel).toBe(PrivacyLevel.MINIMAL);
			expect(await bot.inspect.keysHolding('LOCK-4471')).not.toEqual([]);

			const { done } = await confirmedSession(bot.fake, {
				subcommand: 'privacy',
				options: { level: 'full' },
				user: DAVE.id,
				channelId: GENERAL
			});
			expect(done).toContain('everything memory held about you is gone');
			expect(done).toContain('**full**');
			expect((await container.memory.getUserSettings(DAVE.id)).privacyLevel).toBe(PrivacyLevel.FULL);
			// His words, and Sol's reply repeating them (`noted "…"`), in every row.
			expect(await bot.inspect.keysHolding('LOCK-4471')).toEqual([]);
			expect(await container.memory.exportUser(DAVE.id)).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [] });
		});

		it.each([
			['partial', PrivacyLevel.PARTIAL, 'no profile or topic notes'],
			['minimal', PrivacyLevel.MINIMAL, 'a profile and topic notes']
		])('WHEN Dave picks level:%s THEN it is stored and explained', async (level, stored, explanation) => {
			const { content } = await session(DAVE.id, 'privacy', { level });

			expect(content).toContain(`Privacy level: **${level}**`);
			expect(content).toContain(explanation);
			expect((await container.memory.getUserSettings(DAVE.id)).privacyLevel).toBe(stored);
		});

		it('WHEN Dave turns cross_server on THEN his level stays and cross-server memory is on', async () => {
			const { content } = await session(DAVE.id, 'privacy', { cross_server: true });

			expect(content).toContain('Cross-server memory: **on**');
			expect(await container.memory.getUserSettings(DAVE.id)).toMatchObject({ privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: true });
		});

		it('WHEN Dave gives no option THEN he is shown his settings, unchanged', async () => {
			const { content } = await session(DAVE.id, 'privacy');

			expect(content).toContain('Privacy level: **minimal**');
			expect(content).toContain('Cross-server memory: **on**');
		});

		it('WHEN Dave types an invalid level by hand THEN he gets an ephemeral explanation and nothing changes', async () => {
			const { content } = await session(DAVE.id, 'privacy', [
				{ name: 'level', type: ApplicationCommandOptionType.String, value: 'everything' }
			]);

			expect(content).toBe('Unknown privacy level "everything". Choose minimal, partial or full.');
			expect(await container.memory.getUserSettings(DAVE.id)).toMatchObject({ privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: true });
		});
	});

	describe('GIVEN Alice and Bob talked with Sol in #general and Alice also in #random', () => {
		beforeAll(async () => {
			await remember(ALICE, GENERAL, 'alice: I grow tomatoes');
			await remember(BOB, GENERAL, 'bob: I collect stamps');
			await remember(ALICE, RANDOM, 'alice: my sister visits in June');
		});

		it('WHEN Alice asks /session status THEN she sees her privacy level, her counts, this channel and the storage', async () => {
			const { content } = await session(ALICE.id, 'status');

			expect(content).toContain('Privacy level: **minimal**');
			expect(content).toContain('Short-term conversations: 2 · archived messages you wrote: 2');
			expect(content).toContain('Profile: none · topic notes: 0');
			expect(content).toContain('Storage: sqlite · recent messages kept 12 h, summaries 24 h, archive 30 days');
		});

		// The command cannot know the host's personas, so "this channel" counts every persona's memory of it.
		it('WHEN Alice asks /session status in #general THEN "This channel" counts Sol’s memory of it', async () => {
			const { content } = await session(ALICE.id, 'status');

			expect(content).toMatch(/This channel: 4 recent messages, forgotten in (11 h 59 min|12 h)/);
		});

		it('WHEN a bot without personas also remembers #random THEN /session status there counts both memories', async () => {
			await container.memory.recordTurn({
				userId: DAVE.id,
				serverId: GUILD_ID,
				channelId: RANDOM,
				history: [{ role: 'user', authorId: DAVE.id, text: 'dave: unscoped hello', messageId: '900000000000000001' }],
				responses: [{ text: 'hello Dave', messageId: '900000000000000002' }]
			});

			const { content } = await session(ALICE.id, 'status', undefined, RANDOM);

			// Sol's memory of Alice's exchange (2) and the unscoped bot's of Dave's (2).
			expect(content).toMatch(/This channel: 4 recent messages, forgotten in (11 h 59 min|12 h)/);
		});

		it('WHEN Carol, who never talked with Sol, asks /session status in a channel nobody used THEN she sees nothing remembered', async () => {
			const { content } = await session(CAROL.id, 'status', undefined, THREAD);

			expect(content).toContain('Short-term conversations: 0 · archived messages you wrote: 0');
			expect(content).toContain('This channel: nothing remembered right now');
		});
	});

	describe('GIVEN Alice uses /session in her DM with the bot', () => {
		it('WHEN she asks /session status THEN she gets her status there too', async () => {
			const interaction = bot.fake.slashCommand({ name: 'session', subcommand: 'status', user: ALICE.id });
			const { content } = await ephemeralAnswer(bot.fake, interaction);

			expect(interaction.payload.guild_id).toBeUndefined();
			expect(content).toContain('Short-term conversations: 2');
			expect(content).toContain('This channel: nothing remembered right now');
		});

		it('WHEN she tries /session wipe-channel THEN she is told it only works in a server', async () => {
			const { content } = await ephemeralAnswer(
				bot.fake,
				bot.fake.slashCommand({ name: 'session', subcommand: 'wipe-channel', user: ALICE.id })
			);

			expect(content).toBe('Channel memory can only be wiped in a server.');
		});
	});

	describe('GIVEN a profile and topic notes', () => {
		beforeAll(async () => {
			await container.memory.updateProfile(ALICE.id, {
				preferences: { pronouns: 'she/her' },
				notes: ['prefers short answers'],
				tags: ['gardener']
			});
			await container.memory.saveTopic(ALICE.id, { title: 'Garden plans', note: 'tomatoes along the south fence' });
			await container.memory.saveTopic(ALICE.id, { title: 'Gaming night', note: 'Thursdays at eight' });
			await container.memory.saveTopic(BOB.id, { title: 'Gambling debts', note: 'owes Carol 20 euros' });
		});

		it('WHEN Alice asks /session profile THEN she sees her preferences, notes, tags and topics', async () => {
			const { content } = await session(ALICE.id, 'profile');

			expect(content).toContain('• pronouns: she/her');
			expect(content).toContain('• prefers short answers');
			expect(content).toContain('Tags: gardener');
			expect(content).toContain('• Garden plans (`garden-plans`)');
			expect(content).toContain('• Gaming night (`gaming-night`)');
			expect(content).not.toContain('Gambling');
		});

		it('WHEN Dave, who has none, asks /session profile THEN he is told nothing is stored', async () => {
			const { content } = await session(DAVE.id, 'profile');

			expect(content).toBe('No profile or topic notes are stored about you.');
		});

		it('WHEN Alice types "ga" into /session forget THEN autocomplete offers her topics only, never Bob’s', async () => {
			const interaction = bot.fake.autocomplete({
				name: 'session',
				subcommand: 'forget',
				options: { topic: 'ga' },
				focused: 'topic',
				user: ALICE.id,
				channelId: GENERAL
			});

			const response = await bot.fake.waitForInteractionResponse(interaction.id);

			expect(response.body).toEqual({
				type: InteractionResponseType.ApplicationCommandAutocompleteResult,
				data: {
					choices: expect.arrayContaining([
						{ name: 'Garden plans', value: 'garden-plans' },
						{ name: 'Gaming night', value: 'gaming-night' }
					])
				}
			});
			expect(JSON.stringify(response.body)).not.toMatch(/gambling/i);
		});

		it('WHEN Bob types "ga" THEN autocomplete offers his topic only', async () => {
			const interaction = bot.fake.autocomplete({
				name: 'session',
				subcommand: 'forget',
				options: { topic: 'ga' },
				focused: 'topic',
				user: BOB.id,
				channelId: GENERAL
			});

			const response = await bot.fake.waitForInteractionResponse(interaction.id);

			expect((response.body as { data: unknown }).data).toEqual({ choices: [{ name: 'Gambling debts', value: 'gambling-debts' }] });
		});

		it('WHEN Alice forgets garden-plans THEN it is gone and her other topic stays', async () => {
			const { content } = await session(ALICE.id, 'forget', { topic: 'garden-plans' });

			expect(content).toBe('Forgot the topic `garden-plans`.');
			expect((await container.memory.listTopics(ALICE.id)).map((topic) => topic.slug)).toEqual(['gaming-night']);
		});

		it('WHEN Alice types "ga" again after forgetting garden-plans THEN autocomplete no longer offers it', async () => {
			expect(await choices(ALICE.id, 'ga')).toEqual([{ name: 'Gaming night', value: 'gaming-night' }]);
		});

		it('WHEN Sol’s LLM remembers a topic for Alice THEN her next keystroke offers it', async () => {
			// An aside Sol does not answer, so that no turn is recorded: the tool call is all that changes.
			const aside = bot.fake.sendMessage({ channelId: GENERAL, author: ALICE.id, content: '// we hold a garage sale in May' });
			const channel = (await bot.client.channels.fetch(GENERAL)) as TextChannel;
			const message = await channel.messages.fetch(String(aside.id));
			expect(JSON.parse(await handleRememberTool({ kind: 'topic', name: 'Garage sale', text: 'in May' }, message))).toMatchObject({ ok: true });

			expect(await choices(ALICE.id, 'ga')).toEqual([
				{ name: 'Garage sale', value: 'garage-sale' },
				{ name: 'Gaming night', value: 'gaming-night' }
			]);
			expect(await container.memory.forgetTopic(ALICE.id, 'garage-sale')).toBe(true);
		});

		it('WHEN Alice names Bob’s topic by hand THEN she is told she has no such topic and Bob’s stays', async () => {
			const { content } = await session(ALICE.id, 'forget', { topic: 'gambling-debts' });

			expect(content).toBe('You have no topic `gambling-debts`. `/session profile` lists yours.');
			expect((await container.memory.listTopics(BOB.id)).map((topic) => topic.slug)).toEqual(['gambling-debts']);
		});
	});

	describe('GIVEN /session export', () => {
		it('WHEN Alice exports THEN she gets a gzipped JSON file with her messages, her profile and her topics, and nothing of Bob', async () => {
			const interaction = bot.fake.slashCommand({ name: 'session', subcommand: 'export', user: ALICE.id, channelId: GENERAL });
			const { content, request } = await ephemeralAnswer(bot.fake, interaction);

			expect(content).toContain('everything');
			expect(request.files).toHaveLength(1);
			expect(request.files[0]).toMatchObject({ filename: `memory-export-${ALICE.id}.json.gz` });
			// Fetched as Alice would, from the attachment on her (ephemeral) reply.
			const attachment = (bot.fake.originalMessage(interaction.id)?.attachments as { url: string; filename: string }[])[0]!;
			expect(attachment.filename).toBe(`memory-export-${ALICE.id}.json.gz`);
			const file = Buffer.from(await (await fetch(attachment.url)).arrayBuffer());
			expect(file).toEqual(request.files[0]!.data);
			const exported = JSON.parse(gunzipSync(file).toString('utf8')) as UserExport;
			expect(exported).toEqual(await container.memory.exportUser(ALICE.id).then((now) => ({ ...now, exportedAt: exported.exportedAt })));

			expect(exported.userId).toBe(ALICE.id);
			const everything = JSON.stringify(exported);
			expect(everything).toContain('alice: I grow tomatoes');
			expect(everything).toContain('alice: my sister visits in June');
			expect(exported.profile).toMatchObject({ preferences: { pronouns: 'she/her' } });
			expect(exported.topics.map((topic) => topic.slug)).toEqual(['gaming-night']);
			expect(everything).not.toContain('stamps');
			expect(everything).not.toContain(BOB.id);
			expect(everything).not.toMatch(/gambling/i);
		});
	});

	describe('GIVEN /session clear', () => {
		it('WHEN Alice clears her short-term memory THEN her conversations are forgotten and Bob’s messages stay', async () => {
			const { content } = await session(ALICE.id, 'clear');

			// Her two messages and Sol's two replies to them, which repeat them.
			expect(content).toBe(
				'Forgot your recent conversations: 2 of your conversations, and 4 messages (yours, and the personas’ replies to you) from ' +
					'shared channels’ recent memory.\nStill kept: your older messages in the archive (searchable for 30 days after they were ' +
					'sent), the summaries personas wrote of shared channels, and your profile and topic notes. `/session clear scope:all` ' +
					'forgets those too.'
			);
			expect(await bot.inspect.userEntry(ALICE.id, GENERAL, 'sol').read()).toBeUndefined();
			expect(await bot.inspect.userEntry(ALICE.id, RANDOM, 'sol').read()).toBeUndefined();
			const general = await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read();
			expect(texts(general?.messages)).toContain('bob: I collect stamps');
			expect(texts(general?.messages)).not.toContain('alice: I grow tomatoes');
			const exported = await container.memory.exportUser(ALICE.id);
			expect(exported.shortTerm).toEqual([]);
			expect(exported.sharedShortTerm).toEqual([]);
		});

		it('WHEN Alice picks scope short-term explicitly THEN it does the same, with nothing left to forget', async () => {
			const { content } = await session(ALICE.id, 'clear', { scope: 'short-term' });

			expect(content).toMatch(/^Forgot your recent conversations: 0 of your conversations, and 0 messages /);
		});
	});

	describe('GIVEN /session clear scope:all', () => {
		let asked: FakeInteraction;
		let confirmId: string;
		let cancelId: string;

		beforeAll(async () => {
			await remember(ALICE, GENERAL, 'alice: the spare key is under the mat');
			await remember(ALICE, THREAD, 'alice: thread secret');
			await container.memory.updateProfile(ALICE.id, { notes: ['allergic to cats'] });
		});

		it('WHEN Alice asks THEN she gets a warning with a danger button to confirm and one to cancel, and nothing is deleted yet', async () => {
			asked = bot.fake.slashCommand({ name: 'session', subcommand: 'clear', options: { scope: 'all' }, user: ALICE.id, channelId: GENERAL });
			const { content, data } = await ephemeralAnswer(bot.fake, asked);

			expect(content).toContain('cannot be undone');
			expect(content).toMatch(/expire <t:\d+:R>/);
			const rows = data.components as { type: number; components: { type: number; custom_id: string; label: string; style: number }[] }[];
			expect(rows).toHaveLength(1);
			expect(rows[0]!.type).toBe(ComponentType.ActionRow);
			const [confirm, cancel] = rows[0]!.components;
			expect(confirm).toMatchObject({ type: ComponentType.Button, label: 'Forget everything', style: ButtonStyle.Danger });
			expect(cancel).toMatchObject({ type: ComponentType.Button, label: 'Cancel', style: ButtonStyle.Secondary });
			expect(confirm!.custom_id).toMatch(new RegExp(`^memory:clear-all:confirm:${ALICE.id}:\\d+$`));
			confirmId = confirm!.custom_id;
			cancelId = cancel!.custom_id;
			expect(await bot.inspect.keysHolding('the spare key is under the mat')).not.toEqual([]);
		});

		it('WHEN Bob clicks Alice’s confirm button THEN he is refused, ephemerally, and nothing of Alice’s is deleted', async () => {
			const click = bot.fake.clickButton({ customId: confirmId, messageId: String(bot.fake.originalMessage(asked.id)!.id), user: BOB.id });
			const response = await bot.fake.waitForInteractionResponse(click.id);

			expect(response.body).toEqual({
				type: InteractionResponseType.ChannelMessageWithSource,
				data: expect.objectContaining({ content: 'This confirmation belongs to someone else.', flags: MessageFlags.Ephemeral })
			});
			expect(bot.fake.originalMessage(asked.id)?.components).toHaveLength(1);
			expect((await container.memory.exportUser(ALICE.id)).profile?.notes).toContain('allergic to cats');
			expect(await bot.inspect.keysHolding('the spare key is under the mat')).not.toEqual([]);
		});

		it('WHEN Alice clicks cancel THEN the warning says nothing was deleted, its buttons go, and her data stays', async () => {
			const click = bot.fake.clickButton({ customId: cancelId, messageId: String(bot.fake.originalMessage(asked.id)!.id), user: ALICE.id });
			const response = await bot.fake.waitForInteractionResponse(click.id);

			expect(response.body).toEqual({
				type: InteractionResponseType.UpdateMessage,
				data: expect.objectContaining({ content: 'Cancelled: nothing was deleted or changed.', components: [] })
			});
			expect(bot.fake.originalMessage(asked.id)).toMatchObject({
				content: 'Cancelled: nothing was deleted or changed.',
				components: [],
				flags: MessageFlags.Ephemeral
			});
			expect((await container.memory.exportUser(ALICE.id)).profile?.notes).toContain('allergic to cats');
			expect(await bot.inspect.keysHolding('the spare key is under the mat')).not.toEqual([]);
		});

		it('WHEN Alice asks again and confirms THEN everything of hers is erased, and Bob’s memory stays', async () => {
			const again = bot.fake.slashCommand({
				name: 'session',
				subcommand: 'clear',
				options: { scope: 'all' },
				user: ALICE.id,
				channelId: GENERAL
			});
			const { data } = await ephemeralAnswer(bot.fake, again);
			const confirm = (data.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;

			const click = bot.fake.clickButton({ customId: confirm, messageId: String(bot.fake.originalMessage(again.id)!.id), user: ALICE.id });
			const { callback } = await bot.fake.waitForAnswer(click.id);

			// Acknowledged at once, then the warning itself says it is done.
			expect(callback.body).toEqual({ type: InteractionResponseType.DeferredMessageUpdate });
			expect(bot.fake.originalMessage(again.id)).toMatchObject({
				content: expect.stringMatching(/^Done: everything memory held about you is gone/),
				components: [],
				flags: MessageFlags.Ephemeral
			});
			const exported = await container.memory.exportUser(ALICE.id);
			expect(exported).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [], profile: null, topics: [] });
			for (const text of [
				'the spare key is under the mat',
				'thread secret',
				'I grow tomatoes',
				'my sister visits in June',
				'allergic to cats',
				'Gaming night'
			]) {
				expect(await bot.inspect.keysHolding(text), text).toEqual([]);
			}
			expect(JSON.stringify(await container.memory.exportUser(BOB.id))).toContain('bob: I collect stamps');
			expect(await container.memory.listTopics(BOB.id)).toHaveLength(1);
		});
	});

	describe('GIVEN /session wipe-channel', () => {
		beforeAll(async () => {
			await remember(BOB, RANDOM, 'bob: random thoughts');
			await remember(DAVE, RANDOM, 'dave: more random thoughts');
			await remember(BOB, GENERAL, 'bob: general thoughts');
		});

		it('WHEN Bob, without Manage Messages, tries THEN he is refused and the channel’s memory stays', async () => {
			const { content } = await session(BOB.id, 'wipe-channel', undefined, RANDOM);

			expect(content).toBe('Only moderators (ManageMessages) can wipe a channel’s memory.');
			expect(texts((await bot.inspect.serverEntry(GUILD_ID, RANDOM, 'sol').read())?.messages)).toContain('bob: random thoughts');
		});

		it('WHEN Carol, a moderator, wipes #random from #general THEN every memory of #random is gone and #general keeps its own', async () => {
			const { content } = await session(CAROL.id, 'wipe-channel', { channel: RANDOM }, GENERAL);

			expect(content).toMatch(new RegExp(`^Forgot <#${RANDOM}>: [1-9]\\d* conversations and [1-9]\\d* archived messages\\.$`));
			expect(await bot.inspect.serverEntry(GUILD_ID, RANDOM, 'sol').read()).toBeUndefined();
			expect(await bot.inspect.userEntry(BOB.id, RANDOM, 'sol').read()).toBeUndefined();
			expect(await bot.inspect.userEntry(DAVE.id, RANDOM, 'sol').read()).toBeUndefined();
			expect(await bot.inspect.keysHolding('random thoughts')).toEqual([]);
			expect(texts((await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read())?.messages)).toContain('bob: general thoughts');
			const context = await container.memory.buildContext({
				userId: BOB.id,
				serverId: GUILD_ID,
				channelId: RANDOM,
				personaId: 'sol',
				query: 'random thoughts'
			});
			expect(context.text).not.toContain('random thoughts');
		});

		it('WHEN Carol wipes the channel she is in THEN #general is forgotten', async () => {
			const { content } = await session(CAROL.id, 'wipe-channel');

			expect(content).toMatch(new RegExp(`^Forgot <#${GENERAL}>: `));
			expect(await bot.inspect.keysHolding('general thoughts')).toEqual([]);
		});
	});

	describe('GIVEN memory fails after the answer was deferred', () => {
		it('WHEN Bob’s /session clear fails THEN the same message, deferred at once, says nothing was changed', async () => {
			const failing = vi.spyOn(container.memory, 'clearShortTerm').mockRejectedValueOnce(new Error('store down'));
			try {
				const interaction = bot.fake.slashCommand({ name: 'session', subcommand: 'clear', user: BOB.id, channelId: GENERAL });
				const { answer, content } = await ephemeralAnswer(bot.fake, interaction);

				expect(answer.callback.body).toMatchObject({ type: InteractionResponseType.DeferredChannelMessageWithSource });
				expect(content).toBe('Memory is unavailable right now; nothing was changed. Try again in a moment.');
				expect(bot.fake.originalMessage(interaction.id)).toMatchObject({ content, flags: MessageFlags.Ephemeral });
				expect(bot.fake.interactionResponses(interaction.id).map((request) => request.method)).toEqual(['POST', 'PATCH']);
			} finally {
				failing.mockRestore();
			}
		});

		it('WHEN Bob confirms clear scope:all and the erasure fails THEN the warning itself says nothing was deleted', async () => {
			const failing = vi.spyOn(container.memory, 'clearAll').mockRejectedValueOnce(new Error('store down'));
			try {
				const { done, asked, clicked } = await confirmedSession(bot.fake, {
					subcommand: 'clear',
					options: { scope: 'all' },
					user: BOB.id,
					channelId: GENERAL
				});

				expect(clicked.callback.body).toEqual({ type: InteractionResponseType.DeferredMessageUpdate });
				expect(done).toBe('Memory is unavailable right now; nothing was deleted. Try again in a moment.');
				expect(bot.fake.originalMessage(asked.id)).toMatchObject({ content: done, components: [] });
				expect((await container.memory.listTopics(BOB.id)).map((topic) => topic.slug)).toEqual(['gambling-debts']);
			} finally {
				failing.mockRestore();
			}
		});
	});

	it('GIVEN everything above THEN the bot asked for nothing the fake does not know', () => {
		expect(bot.fake.unhandledRequests()).toEqual([]);
	});
});
