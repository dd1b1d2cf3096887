import '../../src/register';
import { container } from '@sapphire/framework';
import Keyv from 'keyv';
import { ChannelType, type ThreadChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
	contextForMessage,
	handleRememberTool,
	handleShortTermMemoryTool,
	MemoryEngine,
	MemoryEvents,
	type MemoryErrorContext,
	PrivacyLevel,
	rememberTool,
	shortTermMemoryTool,
	shortTermMemoryToolFor
} from '../../src';
import {
	confirmedSession,
	ALICE,
	ALICE_DM,
	BOB,
	CAROL,
	converse as talk,
	DAVE,
	ephemeralAnswer,
	exchanges,
	GENERAL,
	GUILD_ID,
	type MemoryBot,
	RANDOM,
	SECRET,
	SOL,
	startMemoryBot,
	THREAD
} from '../support/memory-bot';
import { serverScopeKey, userScopeKey } from '../support/store-inspection';

describe('capture: a persona bot records each turn and reads memory before the next', () => {
	let bot: MemoryBot;

	beforeAll(async () => {
		bot = await startMemoryBot();
	});

	afterAll(() => bot?.stop());

	const converse = (author: string, channelId: string, content: string) => talk(bot, author, channelId, content);

	const entry = (key: string) => bot.inspect.entry(key).read();

	describe('GIVEN Alice writes in #general', () => {
		it('WHEN Sol replies and reports the turn THEN the turn is recorded in her scope and the server scope', async () => {
			const { sent, turn, result, exchange } = await converse(ALICE.id, GENERAL, 'my cat is called Pixel');

			expect(result).toEqual({ written: true, keys: [userScopeKey(ALICE.id, GENERAL, 'sol'), serverScopeKey(GUILD_ID, GENERAL, 'sol')] });
			expect(turn).toMatchObject({ userId: ALICE.id, serverId: GUILD_ID, channelId: GENERAL, parentChannelId: null });
			expect(turn.responses).toEqual([
				expect.objectContaining({
					text: 'noted "my cat is called Pixel"',
					personaId: 'sol',
					personaName: 'Sol',
					messageId: exchange.reply.id
				})
			]);
			expect(turn.history.find((message) => message.messageId === sent.id)).toMatchObject({
				role: 'user',
				authorId: ALICE.id,
				text: 'my cat is called Pixel'
			});

			const stored = await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read();
			expect(stored?.messages.map((message) => [message.role, message.text])).toEqual([
				['user', 'my cat is called Pixel'],
				['persona', 'noted "my cat is called Pixel"']
			]);
			expect(bot.fake.messagesIn(GENERAL).map((message) => message.content)).toContain('noted "my cat is called Pixel"');
		});

		it('WHEN she writes again THEN the context Sol receives holds the previous exchange, verbatim', async () => {
			const { exchange } = await converse(ALICE.id, GENERAL, 'what is my cat called?');

			const recent = exchange.context.blocks.find((block) => block.tier === 'recent');
			expect(recent?.text).toMatch(/^alice: my cat is called Pixel$/m);
			expect(recent?.text).toMatch(/^Sol: noted "my cat is called Pixel"$/m);
			expect(exchange.context.text).not.toContain('what is my cat called?');
		});

		it('WHEN Sol’s earlier reply comes back in the next turn’s history THEN it is still stored as Sol’s, not as the bot account’s', async () => {
			const stored = await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read();

			const first = stored?.messages.find((message) => message.text === 'noted "my cat is called Pixel"');
			expect(first).toMatchObject({ role: 'persona', authorId: 'sol', authorName: 'Sol' });
			expect(JSON.stringify(stored)).not.toContain('fake-bot');
		});
	});

	describe('GIVEN Alice writes in a thread of #general', () => {
		it('THEN the turn names the thread and its parent channel', async () => {
			const { turn, result } = await converse(ALICE.id, THREAD, 'thread plans: picnic on Sunday');

			expect(turn).toMatchObject({ channelId: THREAD, parentChannelId: GENERAL });
			expect((await entry(result.keys[1]!))?.parentChannelId).toBe(GENERAL);
		});
	});

	describe('GIVEN Alice writes to Sol in a DM', () => {
		it('THEN only her user scope is written, never a server scope', async () => {
			const { turn, result } = await converse(ALICE.id, ALICE_DM, 'a secret only for DMs');

			expect(turn.serverId).toBeNull();
			expect(result).toEqual({ written: true, keys: [userScopeKey(ALICE.id, ALICE_DM, 'sol')] });
			expect((await bot.inspect.userEntry(ALICE.id, ALICE_DM, 'sol').read())?.serverId).toBe('DM');
		});
	});

	describe('GIVEN Bob chose /session privacy level:full', () => {
		beforeAll(async () => {
			const { question, done } = await confirmedSession(bot.fake, {
				subcommand: 'privacy',
				options: { level: 'full' },
				user: BOB.id,
				channelId: RANDOM
			});
			expect(question).toContain('first deletes everything it holds about you');
			expect(done).toContain('**full**');
		});

		it('WHEN Bob writes THEN Sol still answers, but the turn is skipped as privacy-full and nothing is stored', async () => {
			const { result, exchange } = await converse(BOB.id, RANDOM, 'bob was here at noon');

			expect(exchange.reply.content).toBe('noted "bob was here at noon"');
			expect(result).toEqual({ written: false, skippedReason: 'privacy-full', keys: [] });
			expect(await bot.inspect.userEntry(BOB.id, RANDOM, 'sol').read()).toBeUndefined();
			expect(await bot.inspect.serverEntry(GUILD_ID, RANDOM, 'sol').read()).toBeUndefined();
		});

		it('WHEN Alice then writes in the same channel THEN her turn is stored without Bob’s message', async () => {
			const { turn, result } = await converse(ALICE.id, RANDOM, 'alice answers in #random');

			// The host passed Bob's message in the history; the plugin must drop it.
			expect(turn.history.find((message) => message.text === 'bob was here at noon')).toMatchObject({ authorId: BOB.id });
			expect(result.written).toBe(true);
			const stored = await bot.inspect.serverEntry(GUILD_ID, RANDOM, 'sol').read();
			expect(stored?.messages.map((message) => message.text)).toContain('alice answers in #random');
			expect(stored?.messages.filter((message) => message.authorId === BOB.id || message.text === 'bob was here at noon')).toEqual([]);
		});
	});

	describe('GIVEN Sol remembers a conversation in #secret, which only Alice and moderators can view', () => {
		beforeAll(async () => {
			await converse(CAROL.id, SECRET, 'the launch code is 4512');
		});

		it('WHEN Dave, who cannot view #secret, writes in #general THEN his context never shows it', async () => {
			const { exchange } = await converse(DAVE.id, GENERAL, 'dave says hi');

			expect(exchange.context.text).not.toContain('4512');
			expect(exchange.context.text).not.toContain(`<#${SECRET}>`);
		});

		it('WHEN Carol, who can view it, writes in #general THEN her context recalls it under other channels', async () => {
			const { exchange } = await converse(CAROL.id, GENERAL, 'carol says hi');

			const summary = exchange.context.blocks.find((block) => block.tier === 'summary');
			expect(summary?.text).toContain(`<#${SECRET}>`);
			expect(summary?.text).toContain('the launch code is 4512');
		});
	});

	describe('GIVEN Alice has a profile and a topic note', () => {
		beforeAll(async () => {
			await container.memory.updateProfile(ALICE.id, { preferences: { pronouns: 'she/her' } });
			await container.memory.saveTopic(ALICE.id, 'Pixel the cat', 'a grey tabby, afraid of the vacuum');
		});

		it('WHEN she asks Sol about her cat THEN Sol’s context opens with her profile and the matching topic note', async () => {
			const { exchange } = await converse(ALICE.id, THREAD, 'how is my cat doing?');

			expect(exchange.context.blocks[0]?.tier).toBe('profile');
			expect(exchange.context.blocks[0]?.text).toContain('pronouns: she/her');
			expect(exchange.context.blocks[0]?.text).toContain('Pixel the cat: a grey tabby, afraid of the vacuum');
		});

		it('WHEN Dave writes THEN nothing of Alice’s profile reaches his context', async () => {
			const { exchange } = await converse(DAVE.id, THREAD, 'how is the cat doing?');

			expect(exchange.context.text).not.toContain('she/her');
			expect(exchange.context.text).not.toContain('grey tabby');
		});
	});

	describe('GIVEN Alice cleared her memory while the channel’s history still shows her old messages', () => {
		const GARDEN = '300000000000000006';

		beforeAll(async () => {
			bot.fake.addChannel(GUILD_ID, { id: GARDEN, name: 'garden' });
			await vi.waitFor(() => expect(bot.client.channels.cache.has(GARDEN)).toBe(true));
		});

		it('WHEN she used /session clear and writes again THEN Sol’s re-fetched history does not bring her old words back', async () => {
			await converse(ALICE.id, GARDEN, 'alice: the old plan was roses');
			await ephemeralAnswer(bot.fake, bot.fake.slashCommand({ name: 'session', subcommand: 'clear', user: ALICE.id, channelId: GARDEN }));

			const { turn, result } = await converse(ALICE.id, GARDEN, 'alice: the new plan is tulips');

			expect(turn.history.map((message) => message.text)).toContain('alice: the old plan was roses');
			expect(result.written).toBe(true);
			const stored = await bot.inspect.serverEntry(GUILD_ID, GARDEN, 'sol').read();
			expect(stored?.messages.map((message) => message.text)).toContain('alice: the new plan is tulips');
			expect(stored?.messages.map((message) => message.text)).not.toContain('alice: the old plan was roses');
			const own = await bot.inspect.userEntry(ALICE.id, GARDEN, 'sol').read();
			expect(own?.messages.filter((message) => message.role === 'user').map((message) => message.text)).toEqual([
				'alice: the new plan is tulips'
			]);
		});

		it(
			['WHEN she used /session clear scope:all and writes again THEN', 'nothing she wrote before is stored again, in memory or archive'].join(
				' '
			),
			async () => {
				const asked = bot.fake.slashCommand({
					name: 'session',
					subcommand: 'clear',
					options: { scope: 'all' },
					user: ALICE.id,
					channelId: GARDEN
				});
				const { data } = await ephemeralAnswer(bot.fake, asked);
				const confirm = (data.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;
				const click = bot.fake.clickButton({ customId: confirm, messageId: String(bot.fake.originalMessage(asked.id)!.id), user: ALICE.id });
				await bot.fake.waitForAnswer(click.id);

				const { turn } = await converse(ALICE.id, GARDEN, 'alice: starting over');

				expect(turn.history.map((message) => message.text)).toEqual(
					expect.arrayContaining(['alice: the old plan was roses', 'alice: the new plan is tulips'])
				);
				const exported = await container.memory.exportUser(ALICE.id);
				const hers = [...exported.shortTerm.flatMap((kept) => kept.messages), ...exported.sharedShortTerm, ...exported.archive].filter(
					(message) => message.role === 'user'
				);
				expect(new Set(hers.map((message) => message.text))).toEqual(new Set(['alice: starting over']));
				// Her first words in #general, stored anywhere as a message of their own (Sol's reply quoting them may stay).
				expect(await bot.inspect.keysHolding('"text":"my cat is called Pixel"')).toEqual([]);
			}
		);

		// Known engine gap: the barrier drops her own old messages only, so Sol's replies from before the
		// erasure come back into her own (user-scope) memory from the re-fetched history. Flips when fixed.
		it('AND Sol’s replies from before the erasure do not come back into her own memory either', async () => {
			const own = JSON.stringify(await bot.inspect.userEntry(ALICE.id, GARDEN, 'sol').read());

			expect(own).not.toContain('tulips');
			expect(own).not.toContain('roses');
		});
	});

	describe('GIVEN Sol remembers a private thread of #general that Dave is not in', () => {
		const HIDEOUT = '300000000000000007';

		beforeAll(async () => {
			bot.fake.addChannel(GUILD_ID, { id: HIDEOUT, name: 'hideout', type: ChannelType.PrivateThread, parentId: GENERAL });
			await vi.waitFor(() => expect(bot.client.channels.cache.has(HIDEOUT)).toBe(true));
			await converse(ALICE.id, HIDEOUT, 'the surprise party is on the 9th');
		});

		it('WHEN Dave, who can view #general but is no member of the thread, writes in #random THEN his context never shows it', async () => {
			const { exchange } = await converse(DAVE.id, RANDOM, 'dave: any news?');

			expect(exchange.context.text).not.toContain('surprise party');
			expect(exchange.context.text).not.toContain(`<#${HIDEOUT}>`);
		});

		it('WHEN Alice, whom Discord lists as a member of the thread, writes in #random THEN her context recalls it', async () => {
			bot.fake.dispatch('THREAD_MEMBERS_UPDATE', {
				id: HIDEOUT,
				guild_id: GUILD_ID,
				member_count: 2,
				added_members: [{ id: HIDEOUT, user_id: ALICE.id, join_timestamp: new Date().toISOString(), flags: 0 }]
			});
			await vi.waitFor(() => expect((bot.client.channels.cache.get(HIDEOUT) as ThreadChannel).members.cache.has(ALICE.id)).toBe(true));

			const { exchange } = await converse(ALICE.id, RANDOM, 'alice: any news?');

			expect(exchange.context.text).toContain(`<#${HIDEOUT}>`);
			expect(exchange.context.text).toContain('the surprise party is on the 9th');
		});
	});

	describe('GIVEN a host whose LLM calls tools', () => {
		it('THEN update_short_term_memory is offered with a JSON schema that requires a string summary', () => {
			expect(shortTermMemoryTool.type).toBe('function');
			expect(shortTermMemoryTool.function.name).toBe('update_short_term_memory');
			expect(shortTermMemoryTool.function.description.length).toBeGreaterThan(20);
			expect(shortTermMemoryTool.function.parameters).toMatchObject({
				type: 'object',
				properties: { summary: { type: 'string' } },
				required: ['summary']
			});
		});

		it('WHEN Sol calls it during a turn THEN the summary is stored and the next context shows it in the summary tier', async () => {
			const { exchange } = await converse(ALICE.id, RANDOM, 'please remember that the meetup moved to Friday');

			const answer = JSON.parse(
				await handleShortTermMemoryTool('{"summary":"Alice: the meetup moved to Friday."}', exchange.message, { id: SOL.id })
			);
			expect(answer).toMatchObject({ ok: true, summary: 'Alice: the meetup moved to Friday.' });
			expect((await bot.inspect.serverEntry(GUILD_ID, RANDOM, 'sol').read())?.summary).toBe('Alice: the meetup moved to Friday.');

			const next = await converse(ALICE.id, RANDOM, 'when is the meetup?');
			const summary = next.exchange.context.blocks.find((block) => block.tier === 'summary');
			expect(summary?.text).toContain('Alice: the meetup moved to Friday.');
		});

		it('WHEN Sol calls it a second time in the same turn THEN it gets ok:false and the first summary stays', async () => {
			const { exchange } = await converse(ALICE.id, GENERAL, 'summarise us');
			expect(JSON.parse(await handleShortTermMemoryTool({ summary: 'first summary' }, exchange.message, { id: SOL.id })).ok).toBe(true);

			const again = JSON.parse(await handleShortTermMemoryTool('{"summary":"second summary"}', exchange.message, { id: SOL.id }));

			expect(again).toEqual({ ok: false, error: expect.stringMatching(/once/) });
			expect((await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read())?.summary).toBe('first summary');
		});

		it('WHEN the summary is not a string, or the arguments are not JSON THEN it gets ok:false with an explanation', async () => {
			const { exchange } = await converse(ALICE.id, GENERAL, 'more chatter');

			const notString = JSON.parse(await handleShortTermMemoryTool('{"summary":42}', exchange.message, { id: SOL.id }));
			const badJson = JSON.parse(await handleShortTermMemoryTool('{"summary": "unterminated', exchange.message, { id: SOL.id }));

			expect(notString).toEqual({ ok: false, error: expect.stringContaining('string') });
			expect(badJson).toEqual({ ok: false, error: expect.stringContaining('JSON') });
			expect((await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read())?.summary).toBe('first summary');
		});
	});

	describe('GIVEN the server uses category mode', () => {
		it('THEN the tool asks for one required string per category, and a call replaces the category map', async () => {
			await container.memory.setServerSettings(GUILD_ID, { summaryCategories: ['plans', 'mood'] });
			const tool = await shortTermMemoryToolFor(GUILD_ID);
			expect(tool.function.parameters).toMatchObject({ type: 'object', required: ['plans', 'mood'] });
			expect((await shortTermMemoryToolFor(null)).function.parameters).toMatchObject({ required: ['summary'] });

			const { exchange } = await converse(ALICE.id, RANDOM, 'plans for the weekend?');
			const missing = JSON.parse(await handleShortTermMemoryTool({ plans: 'hike on Saturday' }, exchange.message, { id: SOL.id }));
			expect(missing).toEqual({ ok: false, error: expect.stringContaining('mood') });
			const answer = JSON.parse(
				await handleShortTermMemoryTool({ plans: 'hike on Saturday', mood: 'excited' }, exchange.message, { id: SOL.id })
			);
			expect(answer.ok).toBe(true);
			expect(await bot.inspect.serverEntry(GUILD_ID, RANDOM, 'sol').read()).toMatchObject({
				summary: null,
				categories: { plans: 'hike on Saturday', mood: 'excited' }
			});
			const next = await converse(ALICE.id, RANDOM, 'what did we plan?');
			expect(next.exchange.context.blocks.find((block) => block.tier === 'summary')?.text).toContain('plans: hike on Saturday');
			await container.memory.setServerSettings(GUILD_ID, { summaryCategories: [] });
		});
	});

	describe('GIVEN the remember tool', () => {
		it('THEN it is offered with a JSON schema, and a call saves to the member’s profile or topics', async () => {
			expect(rememberTool.function).toMatchObject({ name: 'remember', parameters: { required: expect.arrayContaining(['kind', 'text']) } });
			const { exchange } = await converse(ALICE.id, GENERAL, 'I am vegetarian, by the way');
			expect(JSON.parse(await handleRememberTool('{"kind":"preference","name":"diet","text":"vegetarian"}', exchange.message))).toMatchObject({
				ok: true,
				kind: 'preference'
			});
			expect(
				JSON.parse(await handleRememberTool({ kind: 'topic', name: 'Garden', text: 'growing tomatoes on the balcony' }, exchange.message))
			).toMatchObject({ ok: true, saved: 'garden' });
			expect((await container.memory.getProfile(ALICE.id))?.preferences.diet).toBe('vegetarian');
			expect((await container.memory.getTopic(ALICE.id, 'garden'))?.note).toContain('tomatoes');
			const bad = JSON.parse(await handleRememberTool({ kind: 'preference', text: 'no name' }, exchange.message));
			expect(bad).toEqual({ ok: false, error: expect.stringContaining('name') });
		});

		it('WHEN the member is PARTIAL THEN it is refused with a reason the LLM can read', async () => {
			const { exchange } = await converse(CAROL.id, GENERAL, 'remember my birthday is in May');
			await container.memory.setUserSettings(CAROL.id, { privacyLevel: PrivacyLevel.PARTIAL });
			const refused = JSON.parse(await handleRememberTool({ kind: 'note', text: 'birthday in May' }, exchange.message));
			expect(refused).toEqual({ ok: false, error: expect.stringContaining('PARTIAL') });
			expect(await container.memory.getProfile(CAROL.id)).toBeNull();
			await container.memory.setUserSettings(CAROL.id, { privacyLevel: PrivacyLevel.MINIMAL });
		});
	});

	describe('GIVEN a host that passes something other than a Message', () => {
		it('THEN the helpers never throw: an empty context or a refusal, and memoryError carries INVALID_INPUT naming what was given', async () => {
			const errors: [unknown, MemoryErrorContext][] = [];
			const onError = (error: unknown, context: MemoryErrorContext) => errors.push([error, context]);
			bot.client.on(MemoryEvents.Error, onError);
			const logged = vi.spyOn(container.logger, 'error').mockImplementation(() => undefined);
			try {
				for (const given of [null, undefined, 42, {}, { author: { id: ALICE.id } }, [] as unknown])
					expect(await contextForMessage(given as never, SOL)).toEqual({ text: '', tokens: 0, blocks: [] });
				expect(JSON.parse(await handleRememberTool({ kind: 'note', text: 'x' }, null as never))).toEqual({
					ok: false,
					error: expect.any(String)
				});
				expect(JSON.parse(await handleShortTermMemoryTool({ summary: 'x' }, 'a message' as never))).toEqual({
					ok: false,
					error: expect.any(String)
				});
				expect(errors.map(([, context]) => context.phase)).toEqual([
					'context',
					'context',
					'context',
					'context',
					'context',
					'context',
					'tool',
					'tool'
				]);
				for (const [error] of errors)
					expect(error).toMatchObject({
						code: 'INVALID_INPUT',
						message: expect.stringMatching(/^message must be a discord\.js Message; got /)
					});
				expect((errors[0]![0] as Error).message).toContain('got null');
				expect((errors[3]![0] as Error).message).toContain('got an object that is not a Message');
			} finally {
				bot.client.off(MemoryEvents.Error, onError);
				logged.mockRestore();
			}
		});
	});

	describe('GIVEN the store fails', () => {
		let healthy: MemoryEngine;
		let broken: MemoryEngine;

		beforeAll(async () => {
			healthy = container.memory;
			const failing = () => Promise.reject(new Error('disk I/O error'));
			const keyv = new Keyv({
				store: {
					get: failing,
					set: failing,
					delete: failing,
					clear: failing,
					getMany: failing,
					setMany: failing,
					deleteMany: failing,
					on: () => undefined
				} as never
			});
			broken = await MemoryEngine.open({ keyv, env: {} });
			container.memory = broken;
		});

		afterAll(() => {
			container.memory = healthy;
		});

		it(
			[
				'WHEN Alice writes',
				'THEN Sol still replies, memoryError is emitted for the context and the capture, and the default listener logs it'
			].join(' '),
			async () => {
				const errors: [unknown, MemoryErrorContext][] = [];
				const onError = (error: unknown, context: MemoryErrorContext) => errors.push([error, context]);
				bot.client.on(MemoryEvents.Error, onError);
				const logged = vi.spyOn(container.logger, 'error').mockImplementation(() => undefined);
				try {
					const sent = bot.fake.sendMessage({ channelId: GENERAL, author: ALICE.id, content: 'is anyone there?' });

					await expect.poll(() => errors.map(([, context]) => context.phase).sort()).toEqual(['capture', 'context']);
					const exchange = exchanges.get(String(sent.id));
					expect(exchange?.reply.content).toBe('noted "is anyone there?"');
					expect(exchange?.context).toEqual({ text: '', tokens: 0, blocks: [] });
					expect(errors.every(([, context]) => context.userId === ALICE.id && context.channelId === GENERAL)).toBe(true);
					expect(errors.map(([error]) => (error as { code?: string }).code)).toEqual(['STORE_FAILURE', 'STORE_FAILURE']);
					await expect
						.poll(() => logged.mock.calls.map((call) => String(call[0])))
						.toEqual(
							expect.arrayContaining([
								`[memory] context, user ${ALICE.id}, channel ${GENERAL}:`,
								`[memory] capture, user ${ALICE.id}, channel ${GENERAL}:`
							])
						);
					expect(logged.mock.calls.every((call) => String(call[1]).includes('disk I/O error'))).toBe(true);
				} finally {
					bot.client.off(MemoryEvents.Error, onError);
					logged.mockRestore();
				}
			}
		);
	});

	it('GIVEN everything above THEN the bot asked for nothing the fake does not know', () => {
		expect(bot.fake.unhandledRequests()).toEqual([]);
	});
});
