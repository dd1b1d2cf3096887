import Keyv from 'keyv';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryEngine, PrivacyLevel } from '../../src';
import type { ShortTermEntry, UserExport } from '../../src/engine/schemas';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { isAuthorIndexKey, serverScopeKey, type StoreInspection, userScopeKey } from '../support/store-inspection';
import { ask, CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, said, snowflake, THEO, turn } from '../support/turns';

const HOUR = 3_600_000;
const MINUTE = 60_000;

describe.each(backends)('/session operations on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	let engine: MemoryEngine;
	let inspect: StoreInspection;
	beforeEach(() => void ({ engine, inspect } = under));
	const dm = snowflake();

	const entry = (key: string) => inspect.entry(key).read();
	const texts = (value: ShortTermEntry | undefined) => value?.messages.map((message) => message.text) ?? [];

	/** Maya in #general (with Theo in the history), in another channel, and in a DM. */
	async function converse() {
		await engine.recordTurn(
			turn({
				history: [said(THEO, 'theo likes lighthouses', clock.current - 1000), said(MAYA, 'maya likes harbours', clock.current)],
				reply: 'Sol likes both',
				timestamp: clock.current
			})
		);
		clock.advance(MINUTE);
		await engine.recordTurn(turn({ channelId: OTHER_CHANNEL, text: 'maya in the other channel', reply: 'Sol agrees', timestamp: clock.current }));
		await engine.recordTurn(
			turn({ serverId: null, channelId: dm, text: 'maya in private', reply: 'Sol whispers back', timestamp: clock.current })
		);
	}

	describe('status', () => {
		it('GIVEN a member memory knows nothing of THEN every count is zero, with the storage and the TTLs', async () => {
			expect(await engine.status(MAYA.id)).toEqual({
				privacyLevel: PrivacyLevel.MINIMAL,
				crossServerOptIn: false,
				storage: backend.storage,
				shortTermEntries: 0,
				archivedMessages: 0,
				hasProfile: false,
				topics: 0,
				contextSources: 0,
				ttl: { shortTermHours: 12, summaryHours: 24, archiveDays: 30 }
			});
		});

		it('GIVEN a member who talked THEN it counts their conversations, their archived messages, profile and topics', async () => {
			await converse();
			await engine.updateProfile(MAYA.id, { tags: ['sailing'] });
			await engine.saveTopic(MAYA.id, 'Boats', 'a small yawl');
			await engine.setUserSettings(MAYA.id, { crossServerOptIn: true });
			expect(await engine.status(MAYA.id)).toMatchObject({
				crossServerOptIn: true,
				shortTermEntries: 3,
				archivedMessages: 3,
				hasProfile: true,
				topics: 1
			});
			// Theo's words count for Theo, wherever they were captured.
			expect(await engine.status(THEO.id)).toMatchObject({ shortTermEntries: 0, archivedMessages: 1 });
		});

		it('GIVEN a guild channel THEN current describes its server scope, and in a DM the user scope', async () => {
			await converse();
			clock.advance(HOUR);
			expect((await engine.status(MAYA.id, { serverId: GUILD, channelId: CHANNEL, personaId: 'sol' })).current).toEqual({
				messages: 3,
				hasSummary: false,
				expiresInMs: 12 * HOUR - HOUR - MINUTE
			});
			expect((await engine.status(MAYA.id, { serverId: null, channelId: dm, personaId: 'sol' })).current).toEqual({
				messages: 2,
				hasSummary: false,
				expiresInMs: 11 * HOUR
			});
		});

		it('GIVEN a channel with nothing live THEN current is absent', async () => {
			await converse();
			expect((await engine.status(MAYA.id, { serverId: GUILD, channelId: snowflake() })).current).toBeUndefined();
			clock.hours(13);
			expect(await engine.status(MAYA.id, { serverId: GUILD, channelId: CHANNEL, personaId: 'sol' })).toMatchObject({
				shortTermEntries: 0,
				archivedMessages: 3
			});
			expect((await engine.status(MAYA.id, { serverId: GUILD, channelId: CHANNEL, personaId: 'sol' })).current).toBeUndefined();
		});

		it('GIVEN bad input THEN it rejects with INVALID_INPUT', async () => {
			await expect(engine.status('not an id!')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			await expect(engine.status(MAYA.id, { serverId: GUILD, channelId: '' })).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('channelId')
			});
		});
	});

	describe('the author index', () => {
		it('GIVEN captured turns THEN each member has the live scopes that archived their words, with counts', async () => {
			await converse();
			const maya = (await inspect.authorIndex(MAYA.id).read())!;
			expect(Object.keys(maya).sort()).toEqual(
				[serverScopeKey(GUILD, CHANNEL, 'sol'), serverScopeKey(GUILD, OTHER_CHANNEL, 'sol'), userScopeKey(MAYA.id, dm, 'sol')].sort()
			);
			// Counted: her message; newest: Sol's reply to her turn (a millisecond later), which carries her words too.
			expect(maya[serverScopeKey(GUILD, CHANNEL, 'sol')]).toEqual({ count: 1, lastTs: clock.current - MINUTE + 1 });
			expect(Object.keys((await inspect.authorIndex(THEO.id).read())!)).toEqual([serverScopeKey(GUILD, CHANNEL, 'sol')]);
			// Personas are not members: their replies are not indexed.
			expect(await inspect.authorIndex('sol').read()).toBeUndefined();
		});

		it('GIVEN a steady channel THEN further turns read and write nothing of the index, and close writes the counts held in memory', async () => {
			const reads: string[] = [];
			const writes: string[] = [];
			const map = new (class extends Map<string, unknown> {
				public override get(key: string) {
					reads.push(key);
					return super.get(key);
				}

				public override set(key: string, value: unknown) {
					writes.push(key);
					return super.set(key, value);
				}
			})();
			const memory = await MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, now: clock.now });
			await memory.recordTurn(turn({ timestamp: clock.current }));
			reads.length = 0;
			writes.length = 0;
			for (let index = 0; index < 20; index++) {
				clock.advance(1000);
				await memory.recordTurn(turn({ text: `steady ${index}`, timestamp: clock.current }));
			}
			expect(reads.filter((key) => isAuthorIndexKey(key))).toEqual([]);
			expect(writes.filter((key) => isAuthorIndexKey(key))).toEqual([]);
			expect((await memory.status(MAYA.id)).archivedMessages).toBe(21);
			await memory.close();
			const reopened = await MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, now: clock.now });
			expect(await reopened.status(MAYA.id)).toMatchObject({ archivedMessages: 21, storage: 'custom' });
			await reopened.close();
		});
	});

	describe('clearShortTerm', () => {
		it(
			'GIVEN conversations THEN it deletes her user-scope entries and removes her messages and the replies to her turns ' +
				'from the shared ones, keeping others’ and the summary',
			async () => {
				await converse();
				const general = serverScopeKey(GUILD, CHANNEL, 'sol');
				await inspect.entry(general).patch({ summary: 'Talk of lighthouses.' });
				// Her two messages, and Sol's two replies to her turns (a reply often repeats what it answers).
				expect(await engine.clearShortTerm(MAYA.id)).toEqual({ entriesDeleted: 3, messagesRemoved: 4 });
				for (const key of [
					userScopeKey(MAYA.id, CHANNEL, 'sol'),
					userScopeKey(MAYA.id, OTHER_CHANNEL, 'sol'),
					userScopeKey(MAYA.id, dm, 'sol')
				])
					expect(await entry(key), key).toBeUndefined();
				expect(texts(await entry(general))).toEqual(['theo likes lighthouses']);
				expect((await entry(general))!.summary).toBe('Talk of lighthouses.');
				// Nothing is left of that conversation: it goes with its listing.
				expect(await inspect.serverEntry(GUILD, OTHER_CHANNEL, 'sol').read()).toBeUndefined();
				expect(await engine.status(MAYA.id)).toMatchObject({ shortTermEntries: 0 });
			}
		);

		it('GIVEN nothing to clear THEN it returns zeros', async () => {
			expect(await engine.clearShortTerm(MAYA.id)).toEqual({ entriesDeleted: 0, messagesRemoved: 0 });
		});

		it('GIVEN a cleared member THEN the next turn’s re-fetched history does not bring her old messages back, and her archive stays', async () => {
			const old = said(MAYA, 'maya said this before the clear', clock.current);
			await engine.recordTurn(turn({ history: [old], timestamp: clock.current }));
			const archived = (await engine.status(MAYA.id)).archivedMessages;
			await engine.clearShortTerm(MAYA.id);
			clock.advance(MINUTE);
			await engine.recordTurn(turn({ who: THEO, history: [old, said(THEO, 'theo after the clear', clock.current)], timestamp: clock.current }));
			await engine.recordTurn(turn({ history: [old, said(MAYA, 'maya after the clear', clock.current)], timestamp: clock.current }));
			const general = texts(await inspect.serverEntry(GUILD, CHANNEL, 'sol').read());
			expect(general).not.toContain('maya said this before the clear');
			expect(general).toContain('theo after the clear');
			expect(general).toContain('maya after the clear');
			expect(texts(await inspect.userEntry(MAYA.id, CHANNEL, 'sol').read())).not.toContain('maya said this before the clear');
			expect((await engine.status(MAYA.id)).archivedMessages).toBe(archived + 1);
			expect(await engine.getUserSettings(MAYA.id)).toMatchObject({ clearedBefore: clock.current - MINUTE });
		});

		it('GIVEN a bad user id THEN it rejects with INVALID_INPUT', async () => {
			await expect(engine.clearShortTerm('x'.repeat(65))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		});
	});

	describe('exportUser', () => {
		it(
			['GIVEN her conversations', 'THEN the export holds her words, the personas’ replies to her turns, her profile and topics'].join(' '),
			async () => {
				await converse();
				await engine.updateProfile(MAYA.id, { preferences: { pronouns: 'she/her' } });
				await engine.saveTopic(MAYA.id, 'Harbours', 'she sails from Brest');
				const exported = await engine.exportUser(MAYA.id);
				expect(exported).toMatchObject({
					schemaVersion: 1,
					exportedAt: new Date(clock.current).toISOString(),
					userId: MAYA.id,
					settings: { privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: false }
				});
				const conversations = Object.fromEntries(
					exported.shortTerm.map((item) => [item.channelId, item.messages.map((message) => message.text)])
				);
				expect(conversations).toEqual({
					[CHANNEL]: ['maya likes harbours', 'Sol likes both'],
					[OTHER_CHANNEL]: ['maya in the other channel', 'Sol agrees'],
					[dm]: ['maya in private', 'Sol whispers back']
				});
				expect(exported.sharedShortTerm.map((message) => `${message.serverId}/${message.channelId}: ${message.text}`).sort()).toEqual(
					[
						`${GUILD}/${CHANNEL}: maya likes harbours`,
						`${GUILD}/${CHANNEL}: Sol likes both`,
						`${GUILD}/${OTHER_CHANNEL}: maya in the other channel`,
						`${GUILD}/${OTHER_CHANNEL}: Sol agrees`
					].sort()
				);
				// Not Theo's words, though the turn carried them.
				expect(exported.archive.map((message) => `${message.serverId}: ${message.text}`).sort()).toEqual(
					[
						`${GUILD}: maya in the other channel`,
						`${GUILD}: maya likes harbours`,
						`${GUILD}: Sol agrees`,
						`${GUILD}: Sol likes both`,
						'DM: Sol whispers back',
						'DM: maya in private'
					].sort()
				);
				expect(exported.archive[0]).toMatchObject({ id: expect.any(String), at: expect.stringMatching(/^2026-03-02T/) });
				expect(exported.profile).toMatchObject({ preferences: { pronouns: 'she/her' } });
				expect(exported.topics).toEqual([{ slug: 'harbours', title: 'Harbours', note: 'she sails from Brest', updatedAt: clock.current }]);
				// Plain JSON: it survives a round trip unchanged.
				expect(JSON.parse(JSON.stringify(exported)) as UserExport).toEqual(exported);
			}
		);

		it('GIVEN another member’s message beside hers THEN the export never holds it', async () => {
			const secret = 'theo-only-xylophonist';
			await engine.recordTurn(turn({ history: [said(THEO, `${secret} in #general`), said(MAYA, 'maya answers theo')] }));
			await engine.recordTurn(turn({ who: THEO, history: [said(MAYA, 'maya speaks first'), said(THEO, `again ${secret}`)] }));
			await engine.recordTurn(turn({ who: NOVA, history: [said(THEO, `${secret} thrice`), said(MAYA, 'maya once more')] }));
			expect(await inspect.rowsHolding(secret)).not.toEqual([]);
			const exported = JSON.stringify(await engine.exportUser(MAYA.id));
			expect(exported).toContain('maya answers theo');
			expect(exported).not.toContain(secret);
			expect(exported).not.toContain(THEO.id);
			expect(exported).not.toContain(NOVA.id);
		});

		it('GIVEN a member memory knows nothing of THEN the export is empty but complete', async () => {
			expect(await engine.exportUser(THEO.id)).toEqual({
				schemaVersion: 1,
				exportedAt: new Date(clock.current).toISOString(),
				userId: THEO.id,
				settings: { privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: false },
				shortTerm: [],
				sharedShortTerm: [],
				archive: [],
				profile: null,
				topics: []
			});
		});

		it('GIVEN a bad user id THEN it rejects with INVALID_INPUT', async () => {
			await expect(engine.exportUser('a:b')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		});
	});

	describe('what a guild user scope holds', () => {
		it('GIVEN a history with other members THEN her user scope keeps only her words and the personas’, the server scope everything', async () => {
			await engine.recordTurn(turn({ history: [said(THEO, 'theo first'), said(MAYA, 'maya second')], reply: 'Sol third' }));
			expect(texts(await inspect.userEntry(MAYA.id, CHANNEL, 'sol').read())).toEqual(['maya second', 'Sol third']);
			expect(texts(await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())).toEqual(['theo first', 'maya second', 'Sol third']);
			// What the context shows of it elsewhere is unchanged: her words and the personas'.
			await engine.setUserSettings(MAYA.id, { crossServerOptIn: true });
			expect((await engine.buildContext(ask({ serverId: null, channelId: dm }))).text).toContain('maya second');
		});
	});
});
