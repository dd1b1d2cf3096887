import { beforeEach, describe, expect, it } from 'vitest';
import { type MemoryEngine, PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { serverScopeKey, type StoreInspection, userScopeKey } from '../support/store-inspection';
import { CHANNEL, GUILD, MAYA, NOVA, said, snowflake, THEO, turn } from '../support/turns';

describe.each(backends)('capture on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	let engine: MemoryEngine;
	let inspect: StoreInspection;
	beforeEach(() => void ({ engine, inspect } = under));

	const entry = (key: string) => inspect.entry(key).read();

	describe('GIVEN a turn that must not be remembered', () => {
		it('WHEN it was a stop response THEN nothing is written and the skip is counted', async () => {
			const result = await engine.recordTurn(turn({ isStopResponse: true }));
			expect(result).toEqual({ written: false, skippedReason: 'stop-response', keys: [] });
			expect(engine.stats().turnsSkipped['stop-response']).toBe(1);
			expect(await inspect.userEntry(MAYA.id, CHANNEL, 'sol').read()).toBeUndefined();
		});

		it('WHEN the history is empty after clean-up THEN it is skipped as empty-history', async () => {
			const result = await engine.recordTurn(
				turn({ history: [said(MAYA, '  [System: the user is typing]  '), { role: 'system' as 'user', text: 'rules' }] })
			);
			expect(result.skippedReason).toBe('empty-history');
			expect(await inspect.userEntry(MAYA.id, CHANNEL, 'sol').read()).toBeUndefined();
		});

		it('WHEN the triggering user is FULL (stored or passed in the turn) THEN it is skipped as privacy-full', async () => {
			expect((await engine.recordTurn(turn({ privacyLevel: PrivacyLevel.FULL }))).skippedReason).toBe('privacy-full');
			await engine.setUserSettings(THEO.id, { privacyLevel: PrivacyLevel.FULL });
			expect((await engine.recordTurn(turn({ who: THEO }))).skippedReason).toBe('privacy-full');
			expect(await inspect.serverEntry(GUILD, CHANNEL, 'sol').read()).toBeUndefined();
			expect(engine.stats().turnsSkipped['privacy-full']).toBe(2);
		});

		it('WHEN a turn passes MINIMAL for a user stored as FULL THEN the level in the turn wins', async () => {
			await engine.setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.FULL });
			// Choosing FULL erased what she wrote until then: the turn's message is a later one.
			clock.advance(1000);
			expect((await engine.recordTurn(turn({ privacyLevel: PrivacyLevel.MINIMAL, timestamp: clock.current }))).written).toBe(true);
		});

		it('WHEN no persona responded THEN it is skipped as no-response', async () => {
			expect((await engine.recordTurn(turn({ responses: [] }))).skippedReason).toBe('no-response');
			expect((await engine.recordTurn(turn({ responses: [{ text: '   ', personaId: 'sol' }] }))).skippedReason).toBe('no-response');
		});
	});

	describe('GIVEN a guild turn', () => {
		it('THEN the user-scope and server-scope keys are written with the persona suffix', async () => {
			const result = await engine.recordTurn(turn());
			expect(result.keys).toEqual([userScopeKey(MAYA.id, CHANNEL, 'sol'), serverScopeKey(GUILD, CHANNEL, 'sol')]);
			const server = await entry(result.keys[1]!);
			expect(server).toMatchObject({
				scope: 'server',
				serverId: GUILD,
				channelId: CHANNEL,
				personaId: 'sol',
				lastUpdated: clock.current,
				turnsSinceRefresh: 1
			});
			// The live scope in a guild is the server scope: only its refresh counter moves.
			expect((await entry(result.keys[0]!))!.turnsSinceRefresh).toBe(0);
		});

		it('WHEN no persona id is given THEN the keys have no persona suffix', async () => {
			const result = await engine.recordTurn(turn({ personaId: null }));
			expect(result.keys).toEqual([userScopeKey(MAYA.id, CHANNEL), serverScopeKey(GUILD, CHANNEL)]);
		});

		it('WHEN it happens in a thread THEN the thread is the channel and its parent is kept', async () => {
			const thread = snowflake();
			const result = await engine.recordTurn(turn({ channelId: thread, parentChannelId: CHANNEL }));
			expect(result.keys).toEqual([userScopeKey(MAYA.id, thread, 'sol'), serverScopeKey(GUILD, thread, 'sol')]);
			expect(await entry(result.keys[1]!)).toMatchObject({ channelId: thread, parentChannelId: CHANNEL });
		});

		it('WHEN two personas respond THEN each gets its own write, and unscoped responses share one', async () => {
			const result = await engine.recordTurn(
				turn({
					responses: [
						{ text: 'I am Sol', personaId: 'sol', messageId: snowflake() },
						{ text: 'I am Luna', personaId: 'luna', personaLineageId: 'moon', messageId: snowflake() },
						{ text: 'Sol again', personaId: 'sol', messageId: snowflake() },
						{ text: 'plain bot', messageId: snowflake() }
					]
				})
			);
			expect(result.keys).toHaveLength(6);
			expect((await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!.messages.map((message) => message.text)).toEqual([
				'hello there',
				'I am Sol',
				'Sol again'
			]);
			expect(await inspect.serverEntry(GUILD, CHANNEL, 'luna').read()).toMatchObject({ lineageId: 'moon' });
			expect((await inspect.serverEntry(GUILD, CHANNEL).read())!.messages.map((message) => message.text)).toEqual(['hello there', 'plain bot']);
		});
	});

	describe('GIVEN a DM turn', () => {
		it('THEN no server-scope key is written and the user scope is the live one', async () => {
			const dm = snowflake();
			const result = await engine.recordTurn(turn({ serverId: null, channelId: dm }));
			expect(result.keys).toEqual([userScopeKey(MAYA.id, dm, 'sol')]);
			expect(await entry(result.keys[0]!)).toMatchObject({ serverId: 'DM', turnsSinceRefresh: 1 });
		});
	});

	describe('GIVEN a DM history whose member messages name no author', () => {
		it('THEN they are filed as the user’s, since nobody else writes in their DM, so export and erasure find them', async () => {
			const dm = snowflake();
			await engine.recordTurn(
				turn({ serverId: null, channelId: dm, history: [{ role: 'user', text: 'anonymous in a DM', messageId: snowflake() }] })
			);
			expect((await inspect.userEntry(MAYA.id, dm, 'sol').read())!.messages[0]).toMatchObject({
				text: 'anonymous in a DM',
				authorId: MAYA.id,
				authorName: 'Maya'
			});
		});
	});

	describe('GIVEN text that needs cleaning', () => {
		it('THEN system annotations go, custom emoji become :name:, and FULL users are dropped from the history', async () => {
			await engine.setUserSettings(NOVA.id, { privacyLevel: PrivacyLevel.FULL });
			await engine.recordTurn(
				turn({
					history: [
						said(THEO, 'secret from theo? no, public'),
						said(NOVA, 'nova is invisible'),
						said(MAYA, 'look <:blobcat:123456789012345678> [System: reply briefly] ok'),
						said(MAYA, '<a:party:123456789012345678>')
					]
				})
			);
			const stored = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!.messages.map((message) => message.text);
			expect(stored).toEqual(['secret from theo? no, public', 'look :blobcat:  ok', ':party:', 'Hi! How can I help?']);
		});
	});

	describe('GIVEN many turns in one channel', () => {
		it('THEN the crude list is merged by message id, keeps the newest N and carries the summary forward', async () => {
			const first = turn({ text: 'one', timestamp: clock.current });
			await engine.recordTurn(first);
			const key = serverScopeKey(GUILD, CHANNEL, 'sol');
			await inspect.entry(key).patch({ summary: 'Maya counts to twelve.' });
			for (let index = 2; index <= 12; index++) {
				clock.advance(60_000);
				// Each turn's history repeats the previous message, as a bot's fetched history does.
				await engine.recordTurn(
					turn({
						history: [
							said(MAYA, `n${index - 1}`, clock.current - 30_000, `m${index - 1}`),
							said(MAYA, `n${index}`, clock.current, `m${index}`)
						],
						reply: `r${index}`
					})
				);
			}
			const after = (await entry(key))!;
			expect(after.messages).toHaveLength(10);
			expect(after.messages.at(-1)!.text).toBe('r12');
			expect(new Set(after.messages.map((message) => message.id)).size).toBe(10);
			expect(after.summary).toBe('Maya counts to twelve.');
			expect(after.turnsSinceRefresh).toBe(12);
		});

		it('WHEN the same turn is recorded twice THEN nothing is stored twice', async () => {
			const once = turn({ text: 'idempotent please' });
			await engine.recordTurn(once);
			const before = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!.messages;
			await engine.recordTurn(once);
			const after = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!.messages;
			expect(after).toEqual(before);
			const context = await engine.buildContext({
				userId: MAYA.id,
				serverId: GUILD,
				channelId: CHANNEL,
				personaId: 'sol',
				query: 'idempotent'
			});
			expect(context.text.match(/idempotent please/g)).toHaveLength(1);
		});

		it('WHEN messages have no id THEN a content id recognises them on re-recording', async () => {
			const noIds = turn({
				history: [{ role: 'user', authorId: MAYA.id, text: 'no id here', timestamp: clock.current }],
				responses: [{ text: 'nor here', personaId: 'sol' }],
				timestamp: clock.current
			});
			await engine.recordTurn(noIds);
			await engine.recordTurn(noIds);
			const { messages } = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!;
			expect(messages.map((message) => message.text)).toEqual(['no id here', 'nor here']);
			expect(messages.every((message) => message.id.startsWith('h:'))).toBe(true);
		});
	});

	describe('GIVEN an expired entry', () => {
		it('THEN a new turn starts a fresh entry instead of carrying it forward', async () => {
			await engine.recordTurn(turn({ text: 'old news' }));
			clock.hours(13);
			await engine.recordTurn(turn({ text: 'new day' }));
			const messages = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!.messages.map((message) => message.text);
			expect(messages).toEqual(['new day', 'Hi! How can I help?']);
		});
	});

	describe('GIVEN input that is not a turn', () => {
		it('THEN recordTurn rejects with INVALID_INPUT naming the field, and stores nothing', async () => {
			await expect(engine.recordTurn({ ...turn(), userId: 'bad id:with colon' })).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('userId')
			});
			await expect(engine.recordTurn({ ...turn(), history: 'nope' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			expect(await inspect.serverEntry(GUILD, CHANNEL, 'sol').read()).toBeUndefined();
		});
	});
});
