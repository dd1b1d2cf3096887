import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src';
import { TestClock } from '../support/backends';
import { ask, GUILD, CHANNEL, MAYA, said, snowflake, THEO, turn } from '../support/turns';

/** A Map that counts the reads the engine makes through Keyv. */
class ReadCountingMap extends Map<string, unknown> {
	public reads = 0;

	public override get(key: string) {
		this.reads++;
		return super.get(key);
	}
}

/** Member messages per seeding turn, and turns: more messages than the newest chunks a first context is served from. */
const PER_TURN = 20;
const TURNS = 100;

/** A word only message `at` of the seeding holds. */
const wordOf = (at: number) => `codeword${at.toString(36)}x`;

/** The seeding's messages that the tests look for, by place: the oldest, some in the middle, the newest. */
const SOUGHT = [3, 250, 700, 1200, 1500, 1960];

const relevantOf = async (engine: MemoryEngine, query: string) =>
	(await engine.buildContext(ask({ query }))).blocks.find((block) => block.tier === 'relevant')?.text ?? '';

/** A channel of 2,000 messages (or `turns` × 20), each with a word of its own, on an in-memory store that outlives the engine (a restart). */
async function seededChannel(indexCacheMb = 32, turns = TURNS) {
	const map = new ReadCountingMap();
	const clock = new TestClock();
	const open = () =>
		MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, config: { sweepIntervalMinutes: 0, indexCacheMb }, now: clock.now });
	const engine = await open();
	const ids: string[] = [];
	for (let turnAt = 0; turnAt < turns; turnAt++) {
		clock.advance(60_000);
		const history = Array.from({ length: PER_TURN }, (_, offset) => {
			const at = turnAt * PER_TURN + offset;
			const id = snowflake();
			ids.push(id);
			return said(at % 2 === 0 ? MAYA : THEO, `message ${wordOf(at)} about ordinary things number ${at}`, clock.current - 1_000 + offset, id);
		});
		await engine.recordTurn(turn({ history, reply: `noted ${turnAt}`, timestamp: clock.current }));
		// From the first turn on, this engine's index takes each message as it is archived: the whole archive, indexed in order.
		if (turnAt === 0) await engine.buildContext(ask({ query: 'anything' }));
	}
	// Past the recent window: only the archive's index finds the sought messages.
	for (let filler = 0; filler < 12; filler++) {
		clock.advance(60_000);
		await engine.recordTurn(turn({ text: `small talk ${filler}`, reply: 'sure', timestamp: clock.current }));
	}
	// What the whole index finds: the turns' messages past each one's first step are indexed in the background.
	await engine.indexingIdle();
	const expected = new Map<number, string>();
	for (const at of SOUGHT.filter((place) => place < ids.length)) expected.set(at, await relevantOf(engine, wordOf(at)));
	await engine.close();
	return { open, ids, expected, map };
}

describe('GIVEN a channel of 2,000 archived messages AND the engine restarted', () => {
	it('THEN the first context is served from the newest messages, and once the rest is indexed each context equals the whole index', async () => {
		const { open, expected } = await seededChannel();
		for (const at of SOUGHT) expect(expected.get(at)).toContain(wordOf(at));

		const restarted = await open();
		// Served at once from the newest messages: the newest is found, the oldest not yet.
		expect(await relevantOf(restarted, wordOf(1960))).toBe(expected.get(1960));
		expect(await relevantOf(restarted, wordOf(3))).not.toContain(wordOf(3));
		await restarted.indexingIdle();
		for (const at of SOUGHT) expect(await relevantOf(restarted, wordOf(at))).toBe(expected.get(at));
		await restarted.close();
	}, 120_000);

	it('WHEN messages are deleted while the older ones are being indexed THEN no context shows them, then or once indexed', async () => {
		const { open, ids } = await seededChannel();
		const restarted = await open();
		await relevantOf(restarted, wordOf(1960));
		// Right after the first context, while the older messages are indexed in the background: one old, one new.
		await restarted.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [ids[250]!, ids[1960]!], kind: 'deleted' });
		expect(await relevantOf(restarted, wordOf(1960))).not.toContain(wordOf(1960));
		expect(await relevantOf(restarted, wordOf(250))).not.toContain(wordOf(250));
		await restarted.indexingIdle();
		expect(await relevantOf(restarted, wordOf(250))).not.toContain(wordOf(250));
		expect(await relevantOf(restarted, wordOf(1960))).not.toContain(wordOf(1960));
		// The rest is found, old and new.
		expect(await relevantOf(restarted, wordOf(251))).toContain(wordOf(251));
		expect(await relevantOf(restarted, wordOf(1961))).toContain(wordOf(1961));
		await restarted.close();
	}, 120_000);

	it('WHEN the channel holds more than half of MEMORY_INDEX_CACHE_MB THEN its newest part is searched, and no context loads it again', async () => {
		const { open, map } = await seededChannel(1);
		const restarted = await open();
		await relevantOf(restarted, wordOf(1960));
		await restarted.indexingIdle();
		// Half a MiB holds several hundred of these messages (each with words of its own): the newest are found, beyond the newest
		// chunks too (1,500 is some 550 messages back), the oldest are not.
		expect(await relevantOf(restarted, wordOf(1960))).toContain(wordOf(1960));
		expect(await relevantOf(restarted, wordOf(1500))).toContain(wordOf(1500));
		expect(await relevantOf(restarted, wordOf(3))).not.toContain(wordOf(3));
		const before = map.reads;
		await relevantOf(restarted, wordOf(1900));
		const oneContext = map.reads - before;
		await relevantOf(restarted, wordOf(1901));
		// A context reads its few keys, never the archive's chunks again.
		expect(map.reads - before - oneContext).toBe(oneContext);
		expect(oneContext).toBeLessThan(20);
		await restarted.close();
	}, 120_000);
});

describe('GIVEN a channel of some 1,900 archived messages (just under 2,000) AND the engine restarted', () => {
	it('THEN its first context searches all of them, the oldest too, with no turn of the event loop for the background', async () => {
		const { open, expected, ids } = await seededChannel(32, 90);
		expect(ids.length).toBe(1_800);
		const restarted = await open();
		for (const at of [3, 250, 700, 1200, 1500]) expect(await relevantOf(restarted, wordOf(at))).toBe(expected.get(at));
		expect(expected.get(3)).toContain(wordOf(3));
		await restarted.close();
	}, 120_000);
});

describe('GIVEN a channel of 800 archived messages AND the engine restarted', () => {
	it('THEN its first context searches all of them, with no turn of the event loop for the background', async () => {
		const { open, expected } = await seededChannel(32, 40);
		const restarted = await open();
		// A loop of awaits, as a script asks: the first context's index is the whole archive's.
		for (const at of [3, 250, 700]) expect(await relevantOf(restarted, wordOf(at))).toBe(expected.get(at));
		expect(expected.get(3)).toContain(wordOf(3));
		await restarted.close();
	}, 120_000);
});
