import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src';
import type { TurnMessage } from '../../src/engine/schemas';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { serverScopeKey, sqliteFilesHolding, type StoreInspection } from '../support/store-inspection';
import { ask, CHANNEL, GUILD, MAYA, OTHER_CHANNEL, said, snowflake, THEO, THIRD_CHANNEL, turn } from '../support/turns';

const MINUTE = 60_000;

/** Words only Maya ever wrote: none may survive her erasure anywhere in the store. */
const MAYA_WORDS = ['zanzibarine', 'plumtastic', 'fennelwise', 'gorgonzolic', 'quillophone'];
/** Words only Theo wrote: all must survive it. */
const THEO_WORDS = ['quokkaberry', 'ottercake', 'marzipanic'];

describe.each(backends)('clearAll on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	let engine: MemoryEngine;
	let inspect: StoreInspection;
	/** Maya's messages as the bot's history carried them, to replay after the erasure. */
	let mayaSaid: TurnMessage[];
	const dm = snowflake();

	beforeEach(async () => {
		({ engine, inspect } = under);

		// #general: Maya and Theo talk, Maya's words also reach the channel through Theo's turns.
		const first = said(MAYA, 'maya mentions the zanzibarine secret', clock.current);
		await engine.recordTurn(
			turn({
				history: [said(THEO, 'theo bakes quokkaberry pie', clock.current - 1000), first],
				reply: 'Sol answers kindly',
				timestamp: clock.current
			})
		);
		clock.advance(MINUTE);
		const second = said(MAYA, 'maya wrote a plumtastic note', clock.current - 1000);
		await engine.recordTurn(
			turn({
				who: THEO,
				history: [first, second, said(THEO, 'theo says ottercake', clock.current)],
				reply: 'Sol nods',
				timestamp: clock.current
			})
		);
		// Another channel, and a DM whose whole conversation is hers.
		clock.advance(MINUTE);
		const third = said(MAYA, 'maya in another channel, fennelwise', clock.current);
		await engine.recordTurn(turn({ channelId: OTHER_CHANNEL, history: [third], reply: 'Sol listens', timestamp: clock.current }));
		const fourth = said(MAYA, 'a gorgonzolic detail in private', clock.current);
		await engine.recordTurn(
			turn({ serverId: null, channelId: dm, history: [fourth], reply: 'Sol replies quillophone in the DM', timestamp: clock.current })
		);
		// Theo alone in a third channel, with a summary built from his words only.
		await engine.recordTurn(turn({ who: THEO, channelId: THIRD_CHANNEL, text: 'theo alone with marzipanic thoughts', timestamp: clock.current }));
		// Enough of Theo in #general that Maya's words leave the recent window and the archive spans two chunks.
		for (let index = 0; index < 40; index++) {
			clock.advance(MINUTE);
			await engine.recordTurn(turn({ who: THEO, text: `theo filler ${index}`, reply: `ok ${index}`, timestamp: clock.current }));
		}
		mayaSaid = [first, second, third, fourth];
		await engine.updateProfile(MAYA.id, { preferences: { pronouns: 'she/her' }, notes: ['loves zanzibarine tea'] });
		await engine.saveTopic(MAYA.id, 'Plumtastic plans', 'a trip in June');
		await engine.saveTopic(MAYA.id, 'Garden', 'fennelwise beds');
		await inspect.serverEntry(GUILD, CHANNEL, 'sol').patch({ summary: 'Maya shared a secret; Theo bakes.' });
		await inspect.serverEntry(GUILD, THIRD_CHANNEL, 'sol').patch({ summary: 'Theo thinks about marzipanic things.' });
	});

	const holding = (word: string) => inspect.rowsHolding(word);

	describe('GIVEN a member who talked in two channels, a DM and through other members’ turns, with a profile and topics', () => {
		it('THEN before the erasure her words are in the store, so the checks below are not vacuous', async () => {
			for (const word of MAYA_WORDS) expect(await holding(word), word).not.toEqual([]);
			for (const word of THEO_WORDS) expect(await holding(word), word).not.toEqual([]);
		});

		it('WHEN she clears all THEN no text of hers is left anywhere in the raw store, and every word of Theo is', async () => {
			await engine.clearAll(MAYA.id);
			for (const word of MAYA_WORDS) expect(await holding(word), word).toEqual([]);
			for (const word of THEO_WORDS) expect(await holding(word), word).not.toEqual([]);
			// Nothing names her as an author either.
			expect((await inspect.rows()).filter((row) => row.includes(`"authorId":"${MAYA.id}"`))).toEqual([]);
		});

		it('WHEN she clears all THEN the result counts what went', async () => {
			const result = await engine.clearAll(MAYA.id);
			expect(result).toEqual({
				// #general, the other channel and the DM.
				entriesDeleted: 3,
				// Hers left #general's window long ago; the other channel still held one, with Sol's reply to it.
				messagesRemoved: 2,
				// Two of hers in #general and one in the other channel, with Sol's replies to them, and the whole DM (her message and Sol's).
				archivedMessagesRemoved: 7,
				summariesDropped: 1,
				profileDeleted: true,
				topicsDeleted: 2
			});
		});

		it(
			[
				'WHEN she clears all',
				'THEN the summary of the entry that held her messages is dropped, and Theo’s other channel keeps its summary'
			].join(' '),
			async () => {
				await engine.clearAll(MAYA.id);
				const general = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!;
				expect(general).toMatchObject({ summary: null, categories: null });
				expect(general.messages.some((message) => message.text.includes('theo filler 39'))).toBe(true);
				expect((await inspect.serverEntry(GUILD, THIRD_CHANNEL, 'sol').read())!.summary).toBe('Theo thinks about marzipanic things.');
			}
		);

		it('WHEN she clears all THEN her export, status, profile and topics are empty, and Theo’s export is whole', async () => {
			await engine.clearAll(MAYA.id);
			expect(await engine.exportUser(MAYA.id)).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [], profile: null, topics: [] });
			expect(await engine.status(MAYA.id)).toMatchObject({
				shortTermEntries: 0,
				archivedMessages: 0,
				hasProfile: false,
				topics: 0,
				contextSources: 0
			});
			expect(await inspect.authorIndex(MAYA.id).read()).toBeUndefined();
			const theo = JSON.stringify(await engine.exportUser(THEO.id));
			for (const word of THEO_WORDS) expect(theo).toContain(word);
		});

		it(
			'WHEN she clears all THEN the relevant tier no longer finds her words, ' +
				'in this process and in another one that had the archive cached',
			async () => {
				const other = await MemoryEngine.open({
					env: {},
					now: clock.now,
					config: { storeUrl: under.storeUrl, storeNamespace: under.namespace, ...backend.config }
				});
				try {
					const query = ask({ userId: THEO.id, query: 'zanzibarine secret plumtastic note quokkaberry' });
					// Both processes load and cache #general's archive index.
					for (const memory of [engine, other]) expect((await memory.buildContext(query)).text).toContain('plumtastic');
					await engine.clearAll(MAYA.id);
					for (const memory of [engine, other]) {
						const { text } = await memory.buildContext(query);
						expect(text).not.toMatch(/zanzibarine|plumtastic/);
						expect(text).toContain('quokkaberry');
					}
				} finally {
					await other.close();
				}
			}
		);

		it(
			[
				'WHEN a later turn’s history repeats her old messages',
				'THEN they are not stored again, by anyone’s turn, while her new words are'
			].join(' '),
			async () => {
				await engine.clearAll(MAYA.id);
				clock.advance(MINUTE);
				await engine.recordTurn(
					turn({ who: THEO, history: [...mayaSaid.slice(0, 2), said(THEO, 'theo is back', clock.current)], timestamp: clock.current })
				);
				clock.advance(MINUTE);
				await engine.recordTurn(
					turn({ history: [...mayaSaid.slice(0, 3), said(MAYA, 'maya starts afresh', clock.current)], timestamp: clock.current })
				);
				await engine.recordTurn(
					turn({
						serverId: null,
						channelId: dm,
						history: [mayaSaid[3]!, said(MAYA, 'maya new DM line', clock.current)],
						timestamp: clock.current
					})
				);
				for (const word of MAYA_WORDS) expect(await holding(word), word).toEqual([]);
				expect(await holding('theo is back')).not.toEqual([]);
				expect(await holding('maya starts afresh')).not.toEqual([]);
				expect(await holding('maya new DM line')).not.toEqual([]);
				// Her new words are indexed again, so a second erasure finds them.
				expect(Object.keys((await inspect.authorIndex(MAYA.id).read())!)).toContain(serverScopeKey(GUILD, CHANNEL, 'sol'));
				await engine.clearAll(MAYA.id);
				expect(await holding('maya starts afresh')).toEqual([]);
				expect(await holding('maya new DM line')).toEqual([]);
			}
		);

		it(
			[
				'WHEN turns with her words are still being captured as she clears all',
				'THEN the erasure waits for them and nothing of them is left'
			].join(' '),
			async () => {
				// New channels and a new DM: no index lists them until their capture is done.
				const captures = [snowflake(), snowflake()].map((channelId) =>
					engine.recordTurn(
						turn({
							who: THEO,
							channelId,
							history: [said(MAYA, 'maya racing with a zanzibarine twin', clock.current)],
							timestamp: clock.current
						})
					)
				);
				captures.push(
					engine.recordTurn(
						turn({
							serverId: null,
							channelId: snowflake(),
							history: [said(MAYA, 'a zanzibarine DM race', clock.current)],
							timestamp: clock.current
						})
					)
				);
				const erased = engine.clearAll(MAYA.id);
				await Promise.all([...captures, erased]);
				expect(await holding('zanzibarine')).toEqual([]);
			}
		);

		it('WHEN another member clears all THEN her data is untouched', async () => {
			await engine.clearAll(THEO.id);
			for (const word of THEO_WORDS) expect(await holding(word), word).toEqual([]);
			for (const word of MAYA_WORDS) expect(await holding(word), word).not.toEqual([]);
			expect(await engine.getProfile(MAYA.id)).toMatchObject({ preferences: { pronouns: 'she/her' } });
		});
	});

	describe('GIVEN a bad user id', () => {
		it('THEN clearAll rejects with INVALID_INPUT and deletes nothing', async () => {
			await expect(engine.clearAll('bad id:1')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			await expect(engine.clearAll('')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			expect(await holding('zanzibarine')).not.toEqual([]);
		});
	});

	if (backend.file) {
		it('GIVEN the SQLite file THEN after the erasure not one byte of her text is left in it, free pages included', async () => {
			await engine.clearAll(MAYA.id);
			await engine.close();
			await inspect.close();
			// Her words as they are, or inside a value the store compressed.
			for (const word of MAYA_WORDS) expect(sqliteFilesHolding(under.storeUrl, word), word).toEqual([]);
			expect(sqliteFilesHolding(under.storeUrl, 'quokkaberry')).not.toEqual([]);
		});
	}
});
