import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { holdersOf, rawRows, rowsHolding } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, OTHER_CHANNEL, OTHER_GUILD, THEO, turn } from '../support/turns';

const HOUR = 3_600_000;

/** The bot is removed from a server: everything of it goes, from every row and file, and nothing of anywhere else. */
describe.each(backends)('the bot leaves a server, on $name', (backend) => {
	const clock = new TestClock();

	/** Two channels and two personas in GUILD, a DM, and another server, with settings, a summary and a deletion. */
	async function populate(engine: MemoryEngine) {
		await engine.setServerSettings(GUILD, { privateChannelIds: [OTHER_CHANNEL] });
		for (let index = 0; index < 4; index++) {
			await engine.recordTurn(turn({ who: MAYA, text: `GUILD-WORD-${index} in general`, reply: `GUILD-REPLY-${index}` }));
			await engine.recordTurn(turn({ who: THEO, channelId: OTHER_CHANNEL, personaId: 'luna', text: `GUILD-SECRET-${index}` }));
			clock.advance(60_000);
		}
		await engine.updateShortTermMemory({ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' }, 'GUILD-SUMMARY of general.');
		await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: ['999999999999999999'], kind: 'deleted' });
		await engine.recordTurn(turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'KEEP-DM words', reply: 'KEEP-DM reply' }));
		await engine.recordTurn(turn({ who: THEO, serverId: OTHER_GUILD, text: 'KEEP-ELSEWHERE words', reply: 'KEEP-ELSEWHERE reply' }));
	}

	describe('GIVEN no grace period (the default)', () => {
		const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 2 });

		it('WHEN it is purged THEN no row or file holds anything of it, and the DM and the other server stay', async () => {
			await populate(under.engine);
			expect(await holdersOf(under, GUILD)).not.toEqual([]);
			const result = await under.engine.serverRemoved(GUILD);
			expect(result.purged).toMatchObject({ channels: 2 });
			expect(result.purged!.entriesDeleted).toBeGreaterThanOrEqual(4);
			expect(result.purged!.archivedMessagesDeleted).toBeGreaterThanOrEqual(12);
			// Its id, its words and its summary: in no row, and on SQLite in no byte of the files.
			for (const marker of [GUILD, 'GUILD-WORD', 'GUILD-REPLY', 'GUILD-SECRET', 'GUILD-SUMMARY'])
				expect(await holdersOf(under, marker), marker).toEqual([]);
			const rows = (await rawRows(under)).join('\n');
			expect(rows).toContain('KEEP-DM words');
			expect(rows).toContain('KEEP-ELSEWHERE words');
			expect((await under.engine.buildContext(ask({ serverId: null, channelId: DM_CHANNEL }))).text).toContain('KEEP-DM words');
			expect((await under.engine.getServerSettings(GUILD)).privateChannelIds).toEqual([]);
			expect((await under.engine.exportUser(MAYA.id)).sharedShortTerm).toEqual([]);
			// The sweep has nothing of it left to find.
			clock.advance(40 * 24 * HOUR);
			await under.engine.sweep();
		});

		it('WHEN the bot is back and talks again THEN the server starts from nothing', async () => {
			await populate(under.engine);
			await under.engine.purgeServer(GUILD);
			await under.engine.recordTurn(turn({ who: MAYA, text: 'a fresh start', timestamp: clock.current }));
			const context = await under.engine.buildContext(ask({ query: 'general' }));
			expect(context.text).toContain('a fresh start');
			expect(context.text).not.toContain('GUILD-');
		});
	});

	describe('GIVEN MEMORY_SERVER_PURGE_GRACE_HOURS=24', () => {
		const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 2, serverPurgeGraceHours: 24 });

		it('WHEN the bot is removed THEN nothing goes until the grace has passed, across a restart, and then everything does', async () => {
			await populate(under.engine);
			const removed = await under.engine.serverRemoved(GUILD);
			expect(removed).toEqual({ purged: null, purgeAt: clock.current + 24 * HOUR });
			await under.engine.close();
			// A restart: the pending purge is in the store.
			const reopened = await MemoryEngine.open({
				env: {},
				now: clock.now,
				config: {
					storeUrl: under.storeUrl,
					storeNamespace: under.namespace,
					...backend.config,
					maxMessagesPerChannel: 2,
					serverPurgeGraceHours: 24
				}
			});
			try {
				clock.advance(23 * HOUR);
				expect((await reopened.sweep()).serversPurged).toBe(0);
				expect(await holdersOf(under, 'GUILD-WORD')).not.toEqual([]);
				clock.advance(2 * HOUR);
				expect((await reopened.sweep()).serversPurged).toBe(1);
				expect(await holdersOf(under, 'GUILD-WORD')).toEqual([]);
				expect(await holdersOf(under, GUILD)).toEqual([]);
			} finally {
				await reopened.close();
			}
		});

		it('WHEN the bot is added back before the grace has passed THEN the purge is cancelled', async () => {
			await populate(under.engine);
			await under.engine.serverRemoved(GUILD);
			expect(await under.engine.serverRejoined(GUILD)).toBe(true);
			expect(await under.engine.serverRejoined(GUILD)).toBe(false);
			clock.advance(48 * HOUR);
			expect((await under.engine.sweep()).serversPurged).toBe(0);
			// The archive keeps its messages for 30 days (the short-term entries have expired by now).
			expect(await rowsHolding(under, 'GUILD-WORD')).not.toEqual([]);
		});
	});
});
