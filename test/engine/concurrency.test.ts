import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { MemoryEngine, type MemoryTurn, tokenCount } from '../../src/engine';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { checkStore, decodeRows, layout, serverScopeKey, SnapshotStore, storeRows, userScopeKey } from '../support/store-inspection';
import { ask, CHANNEL, GUILD, MAYA, NOVA, said, snowflake, THEO, turn } from '../support/turns';

/** Counts of each value. */
function tally(values: readonly string[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

/** The message ids of a turn: its history's and its responses'. */
function idsOf(recorded: MemoryTurn): string[] {
	return [...recorded.history.map((message) => message.messageId!), ...recorded.responses.map((response) => response.messageId!)];
}

describe.each(backends)('concurrency on $name', (backend) => {
	const clock = new TestClock();
	const current = freshEngineEachTest(backend, clock);
	const archived = (scopeKey: string) => current.inspect.archive(scopeKey).messages();
	const liveKey = serverScopeKey(GUILD, CHANNEL, 'sol');
	const nothingHalfWritten = async () => expect(checkStore(decodeRows(await storeRows(current)))).toEqual([]);

	describe('GIVEN 300 turns recorded at once into the same channel', () => {
		const count = 300;
		const members = [MAYA, THEO, NOVA];
		const makeTurns = () =>
			Array.from({ length: count }, (_, index) =>
				turn({
					who: members[index % members.length],
					text: `message ${index} of the burst`,
					timestamp: clock.current - (count - index) * 1000
				})
			);

		it(
			[
				'THEN every message is archived exactly once, the entry holds the newest,',
				'every turn is counted once, and every member finds theirs'
			].join(' '),
			async () => {
				const turns = makeTurns();
				// Each call a millisecond apart on the engine's clock, so a listing written out of order shows.
				const started = performance.now();
				const results = await Promise.all(turns.map((recorded) => (clock.advance(1), current.engine.recordTurn(recorded))));
				const tookMs = Math.round(performance.now() - started);
				expect(results.every((result) => result.written)).toBe(true);

				const expected = turns.flatMap(idsOf);
				const stored = await archived(liveKey);
				const counts = tally(stored.map((message) => message.id));
				expect(stored).toHaveLength(expected.length);
				expect(expected.filter((id) => counts.get(id) !== 1)).toEqual([]);

				const { maxMessagesPerChannel } = current.engine.config;
				const entry = (await current.inspect.entry(liveKey).read())!;
				// Turns are a second apart and replies a millisecond after their message: the newest are the last turns'.
				expect(entry.messages.map((message) => message.id)).toEqual(expected.slice(-maxMessagesPerChannel));
				expect(entry.turnsSinceRefresh).toBe(count);
				// Every message that left the window was folded once at most.
				const cited = (entry.digest ?? []).flatMap((line) => line.sourceIds);
				expect([...tally(cited)].filter(([, times]) => times > 1)).toEqual([]);

				for (const [index, member] of members.entries()) {
					const theirs = turns.filter((_, at) => at % members.length === index);
					const own = (await current.inspect.userEntry(member.id, CHANNEL, 'sol').read())!;
					expect(own.messages.map((message) => message.id)).toEqual(theirs.flatMap(idsOf).slice(-maxMessagesPerChannel));
					expect((await current.engine.status(member.id)).archivedMessages).toBe(theirs.length);
					const exported = new Set((await current.engine.exportUser(member.id)).archive.map((message) => message.id));
					expect(theirs.filter((recorded) => !exported.has(recorded.history[0]!.messageId!))).toEqual([]);
				}
				await nothingHalfWritten();
				console.log(
					`[concurrency] ${backend.name}: ${count} turns at once into one channel: ${stored.length} of ` +
						`${expected.length} messages archived once, turnsSinceRefresh ${entry.turnsSinceRefresh}, in ${tookMs} ms`
				);
			}
		);
	});

	describe('GIVEN the same turn recorded several times at once', () => {
		it('WHEN twice, then 10 times, in a guild and in a DM THEN nothing is stored twice and each turn counts once', async () => {
			const dm = snowflake();
			const guildTurns = [
				turn({ text: 'said once in the guild', timestamp: clock.current - 2000 }),
				turn({ text: 'said once more in the guild', timestamp: clock.current - 1000 })
			];
			const dmTurns = [
				turn({ serverId: null, channelId: dm, text: 'said once in a DM', timestamp: clock.current - 2000 }),
				turn({ serverId: null, channelId: dm, text: 'said once more in a DM', timestamp: clock.current - 1000 })
			];
			for (const [index, times] of [2, 10].entries()) {
				await Promise.all(
					[guildTurns[index]!, dmTurns[index]!].flatMap((recorded) =>
						Array.from({ length: times }, () => current.engine.recordTurn(recorded))
					)
				);
			}
			for (const [key, turns] of [
				[liveKey, guildTurns],
				[userScopeKey(MAYA.id, dm, 'sol'), dmTurns]
			] as const) {
				const ids = turns.flatMap(idsOf);
				expect((await archived(key)).map((message) => message.id)).toEqual(ids);
				const entry = (await current.inspect.entry(key).read())!;
				expect(entry.messages.map((message) => message.id)).toEqual(ids);
				expect(entry.turnsSinceRefresh).toBe(2);
			}
			expect((await current.engine.status(MAYA.id)).archivedMessages).toBe(4);
			// Her messages and Sol's replies to them, in the guild and in the DM.
			expect((await current.engine.exportUser(MAYA.id)).archive).toHaveLength(8);
			await nothingHalfWritten();
		});
	});

	describe('GIVEN turns of the same member recorded at once in many channels and DMs', () => {
		it('THEN the directories, the author index and the registries list them all: status and export include everything', async () => {
			const guilds = Array.from({ length: 4 }, () => snowflake());
			const channels = guilds.flatMap((serverId) => Array.from({ length: 6 }, () => ({ serverId, channelId: snowflake() })));
			const dms = Array.from({ length: 12 }, () => snowflake());
			const at = (offset: number) => clock.current - 10_000 + offset;
			const turns: MemoryTurn[] = [
				...channels.flatMap(({ serverId, channelId }) => [
					turn({ serverId, channelId, text: 'first in this channel', timestamp: at(0) }),
					turn({ serverId, channelId, text: 'second in this channel', timestamp: at(10) }),
					// Her words in someone else's turn: only the author index leads to them.
					turn({
						who: THEO,
						serverId,
						channelId,
						history: [said(MAYA, 'maya quoted by theo', at(20)), said(THEO, 'theo answers maya', at(21))],
						timestamp: at(21)
					})
				]),
				...dms.flatMap((channelId) => [
					turn({ serverId: null, channelId, text: 'a DM', timestamp: at(0) }),
					turn({ serverId: null, channelId, text: 'another DM', timestamp: at(10) })
				])
			];
			await Promise.all(turns.map((recorded) => (clock.advance(1), current.engine.recordTurn(recorded))));

			const hers = turns.flatMap((recorded) =>
				recorded.history.filter((message) => message.authorId === MAYA.id).map((message) => message.messageId!)
			);
			const status = await current.engine.status(MAYA.id);
			expect(status.shortTermEntries).toBe(channels.length + dms.length);
			expect(status.archivedMessages).toBe(hers.length);
			expect((await current.engine.status(THEO.id)).archivedMessages).toBe(channels.length);

			const exported = await current.engine.exportUser(MAYA.id);
			expect(exported.shortTerm).toHaveLength(channels.length + dms.length);
			const inArchive = new Set(exported.archive.map((message) => message.id));
			expect(hers.filter((id) => !inArchive.has(id))).toEqual([]);
			const inShared = new Set(exported.sharedShortTerm.map((message) => message.id));
			expect(
				turns
					.filter((recorded) => recorded.serverId !== null)
					.flatMap((recorded) => recorded.history.filter((message) => message.authorId === MAYA.id).map((message) => message.messageId!))
					.filter((id) => !inShared.has(id))
			).toEqual([]);

			expect(Object.keys((await current.inspect.userDirectory(MAYA.id).read())!)).toHaveLength(channels.length + dms.length);
			for (const serverId of guilds) {
				// Per channel: the server scope in the server's directory, the user scopes of both members in the channel's.
				expect(Object.keys((await current.inspect.serverDirectory(serverId).read())!)).toHaveLength(6);
				for (const channelId of channels.filter((channel) => channel.serverId === serverId).map((channel) => channel.channelId)) {
					expect(Object.keys((await current.inspect.channelDirectory(serverId, channelId).read())!)).toHaveLength(2);
				}
			}
			await nothingHalfWritten();
			console.log(
				`[concurrency] ${backend.name}: ${turns.length} turns at once in ${channels.length} channels of ${guilds.length} ` +
					`guilds and ${dms.length} DMs: all ${hers.length} of her messages in status, export and indexes`
			);
		});
	});

	describe('GIVEN contexts built while turns are recorded', () => {
		it('THEN no context throws and none exceeds its budget', async () => {
			for (let index = 0; index < 20; index++)
				await current.engine.recordTurn(
					turn({ text: `warm-up ${index} about the garden and the beagle`, timestamp: clock.current - 100_000 + index * 1000 })
				);
			const work: Promise<unknown>[] = [];
			const budgets: [number, Promise<{ text: string; tokens: number }>][] = [];
			for (let index = 0; index < 150; index++) {
				work.push(
					current.engine.recordTurn(
						turn({
							who: index % 2 ? THEO : MAYA,
							text: `live ${index}: the beagle dug up the garden again`,
							timestamp: clock.current - 50_000 + index * 100
						})
					)
				);
				const budget = 60 + ((index * 37) % 540);
				const context = current.engine.buildContext(
					ask({ userId: index % 2 ? THEO.id : MAYA.id, query: 'what did the beagle do in the garden', tokenBudget: budget })
				);
				budgets.push([budget, context]);
				work.push(context);
			}
			await Promise.all(work);
			for (const [budget, context] of budgets) {
				const { text, tokens } = await context;
				expect(tokens).toBeLessThanOrEqual(budget);
				expect(tokenCount(text)).toBeLessThanOrEqual(tokens);
			}
			await nothingHalfWritten();
		});
	});

	describe('GIVEN a member clearing all while turns with her words are being recorded', () => {
		it('THEN nothing of hers written before the clear is left, whichever turn finished first, and what she says afterwards is kept', async () => {
			const dm = snowflake();
			const channels = [CHANNEL, snowflake(), snowflake()];
			const hersAt = (offset: number) => clock.current - 60_000 + offset;
			await current.engine.recordTurn(turn({ text: 'an early zanzibarine remark', timestamp: hersAt(0) }));
			const racing: (() => Promise<unknown>)[] = [];
			for (let index = 0; index < 120; index++) {
				const channelId = channels[index % channels.length]!;
				const ts = hersAt(100 + index);
				const kind = index % 3;
				if (kind === 0)
					racing.push(() => current.engine.recordTurn(turn({ channelId, text: `zanzibarine ${index}`, reply: 'noted', timestamp: ts })));
				else if (kind === 1)
					racing.push(() =>
						current.engine.recordTurn(
							turn({ serverId: null, channelId: dm, text: `a zanzibarine DM ${index}`, reply: 'noted', timestamp: ts })
						)
					);
				else
					racing.push(() =>
						current.engine.recordTurn(
							turn({
								who: THEO,
								channelId,
								history: [said(MAYA, `theo quotes zanzibarine ${index}`, ts), said(THEO, `theo replies ${index}`, ts + 1)],
								reply: 'noted',
								timestamp: ts + 1
							})
						)
					);
			}
			// Turns start a few at a time, before the clear, while it sets her barrier, while it erases, and after it.
			const running: Promise<unknown>[] = [];
			for (const [index, start] of racing.entries()) {
				if (index === 40) running.push(current.engine.clearAll(MAYA.id));
				running.push(start());
				if (index % 4 === 3) await new Promise((resolve) => setImmediate(resolve));
			}
			await Promise.all(running);

			expect(await current.inspect.rowsHolding('zanzibarine')).toEqual([]);
			const exported = await current.engine.exportUser(MAYA.id);
			expect(
				[...exported.shortTerm.flatMap((entry) => entry.messages), ...exported.sharedShortTerm, ...exported.archive].filter((message) =>
					message.text.includes('zanzibarine')
				)
			).toEqual([]);
			expect((await current.engine.status(MAYA.id)).archivedMessages).toBe(0);
			for (const channelId of channels)
				expect((await current.engine.buildContext(ask({ userId: THEO.id, channelId, query: 'zanzibarine' }))).text).not.toContain(
					'zanzibarine'
				);
			expect((await current.engine.buildContext(ask({ serverId: null, channelId: dm, query: 'zanzibarine' }))).text).not.toContain(
				'zanzibarine'
			);
			// Theo's own words stay.
			expect(await current.inspect.rowsHolding('theo replies 119')).not.toEqual([]);

			clock.advance(60_000);
			await current.engine.recordTurn(turn({ text: 'maya starts afresh', timestamp: clock.current }));
			expect((await current.engine.buildContext(ask({ query: 'afresh' }))).text).toContain('maya starts afresh');
			await nothingHalfWritten();
		});
	});
});

/**
 * A store whose next read of one key answers with the value it held when asked, but only once that
 * key has been written since: a read that the database ran before a write and whose answer reached
 * the process after it, as a connection pool (PostgreSQL) or a thread pool (SQLite) can deliver it.
 */
class LateReads extends SnapshotStore {
	private held: { key: string; release?: () => void } | null = null;

	public holdNextRead(key: string): void {
		this.held = { key };
	}

	public override async getMany(keys: string[]): Promise<(string | undefined)[]> {
		const values = await super.getMany(keys);
		const { held } = this;
		if (held && keys.includes(held.key) && !held.release) await new Promise<void>((resolve) => (held.release = resolve));
		return values;
	}

	public override async set(key: string, value: string): Promise<boolean> {
		const written = await super.set(key, value);
		if (this.held?.key === key && this.held.release) {
			const { release } = this.held;
			this.held = null;
			// After the writer has taken in its write.
			setTimeout(release, 5);
		}
		return written;
	}
}

describe('GIVEN a read of her settings that started before she cleared all and answers after', () => {
	it('THEN the old answer does not replace the barrier: neither that turn nor a later one stores her earlier words again', async () => {
		const clock = new TestClock();
		const store = new LateReads();
		const engine = await MemoryEngine.open({
			keyv: new Keyv({ store: store as never, namespace: 'memory' }),
			env: {},
			now: clock.now,
			config: { sweepIntervalMinutes: 0 }
		});
		store.holdNextRead(layout.userSettings(MAYA.id).inNamespace('memory'));
		const racing = engine.recordTurn(turn({ text: 'a zanzibarine remark', timestamp: clock.current - 2000 }));
		await new Promise((resolve) => setTimeout(resolve, 5));
		await engine.clearAll(MAYA.id);
		await racing;
		// The bot fetches the channel again: her words from before the clear come back in a history.
		await engine.recordTurn(turn({ history: [said(MAYA, 'another zanzibarine remark', clock.current - 1000)], timestamp: clock.current }));
		await engine.close();
		expect([...store.data].filter(([, value]) => value.includes('zanzibarine'))).toEqual([]);
	});
});
