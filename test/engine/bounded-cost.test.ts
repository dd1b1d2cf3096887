/**
 * Whatever members send, no call does unbounded work (issue 15, point 2): a turn of fifty 4,000-character messages is
 * indexed a step at a time, the first step at once and the rest in the background, yet every message is found once that
 * is done, exactly once, and a message deleted meanwhile never shows; an index that appends grow past its share of
 * `MEMORY_INDEX_CACHE_MB` keeps serving and is trimmed in the background, instead of being loaded again from the store
 * at every context; the first context after a restart indexes only the newest few chunks of such messages.
 */
import Keyv from 'keyv';
import { describe, expect, it, vi } from 'vitest';
import { type ContextRequest, MemoryEngine } from '../../src';
import { MAX_CONTEXT_TOKEN_BUDGET } from '../../src/engine/schemas/context';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, CHANNEL, GUILD, MAYA, said, snowflake, THEO, turn } from '../support/turns';

const MINUTE = 60_000;
/** The most messages a turn's history may bring in one call, each of the most characters a Discord message holds. */
const TURN_MESSAGES = 50;
const MESSAGE_CHARS = 4_000;

/** Plain chat: no figure, name, date or commitment, so the digest counts these messages and quotes none of them. */
const CHAT = 'we walked along the river and talked about the weather and the garden and the old bridge near the market ';

/** A word only message `at` holds, written in letters (a figure would make the message a digest event). */
const wordOf = (at: number) => `zq${at.toString(26).replace(/./g, (digit) => String.fromCharCode(97 + Number.parseInt(digit, 26)))}vk`;

/** 4,000 characters of chat that end with message `at`'s own word: an index that read less than all of it would miss it. */
const longText = (at: number) => {
	const word = wordOf(at);
	return `${CHAT.repeat(Math.ceil(MESSAGE_CHARS / CHAT.length)).slice(0, MESSAGE_CHARS - word.length - 1)} ${word}`;
};

/** A request that leaves the relevant tier room for several of these messages (each line takes about 850 tokens). */
const roomy = (query: string): ContextRequest => ask({ query, tokenBudget: MAX_CONTEXT_TOKEN_BUDGET });

/** The ids the relevant tier shows for `query`. */
const relevantIds = async (engine: MemoryEngine, query: string) =>
	(await engine.buildContext(roomy(query))).blocks.find((block) => block.tier === 'relevant')?.sourceIds ?? [];

/** How many times the relevant tier shows message `at` (whose id is `id`) when asked for its word: 1 when found, as it should be. */
const timesFound = async (engine: MemoryEngine, at: number, id: string) =>
	(await relevantIds(engine, wordOf(at))).filter((shown) => shown === id).length;

/** A turn of fifty 4,000-character messages, numbered from `from`, of Maya and Theo in turn; returns their ids. */
async function longTurn(engine: MemoryEngine, clock: TestClock, from: number): Promise<string[]> {
	clock.advance(MINUTE);
	const history = Array.from({ length: TURN_MESSAGES }, (_, offset) =>
		said(offset % 2 === 0 ? MAYA : THEO, longText(from + offset), clock.current - TURN_MESSAGES + offset, snowflake())
	);
	await engine.recordTurn(turn({ history, reply: 'Noted.', timestamp: clock.current }));
	return history.map((message) => message.messageId!);
}

/** Short turns that push the long messages out of the recent window: only the relevant tier can show them. */
async function smallTalk(engine: MemoryEngine, clock: TestClock): Promise<void> {
	for (let at = 0; at < 8; at++) {
		clock.advance(MINUTE);
		await engine.recordTurn(turn({ text: `small talk ${at}`, reply: 'sure', timestamp: clock.current }));
	}
}

/** A first turn and context, so that the channel's index is cached and takes each later turn as an append. */
async function warmUp(engine: MemoryEngine, clock: TestClock): Promise<void> {
	clock.advance(MINUTE);
	await engine.recordTurn(turn({ text: 'hello everyone', reply: 'Hi!', timestamp: clock.current }));
	await engine.buildContext(ask({ query: 'hello' }));
}

describe.each(backends)('bounded cost per call on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);

	describe('GIVEN a turn of fifty 4,000-character messages, each with a word of its own', () => {
		it('WHEN it is appended to a cached index AND the background indexing is done THEN the relevant tier finds each one, once', async () => {
			await warmUp(under.engine, clock);
			const ids = await longTurn(under.engine, clock, 0);
			await smallTalk(under.engine, clock);
			await under.engine.indexingIdle();
			for (const [at, id] of ids.entries()) expect(await timesFound(under.engine, at, id), wordOf(at)).toBe(1);
		});

		it('WHEN no index is cached yet (the first context loads it) THEN once indexed the relevant tier finds each one, once', async () => {
			const ids = await longTurn(under.engine, clock, 0);
			await smallTalk(under.engine, clock);
			// The first context indexes the newest chunks; the older messages are indexed in the background.
			await under.engine.buildContext(roomy(wordOf(0)));
			await under.engine.indexingIdle();
			for (const [at, id] of ids.entries()) expect(await timesFound(under.engine, at, id), wordOf(at)).toBe(1);
		});

		it('WHEN more such turns AND contexts arrive while it is indexed in the background THEN none is lost and none is found twice', async () => {
			await warmUp(under.engine, clock);
			const ids: string[] = [];
			for (let round = 0; round < 3; round++) {
				ids.push(...(await longTurn(under.engine, clock, round * TURN_MESSAGES)));
				// Each context indexes one more step of what waits, before the background does.
				await under.engine.buildContext(roomy(wordOf(round * TURN_MESSAGES + 1)));
			}
			await smallTalk(under.engine, clock);
			await under.engine.indexingIdle();
			for (const [at, id] of ids.entries()) expect(await timesFound(under.engine, at, id), wordOf(at)).toBe(1);
		});

		it('WHEN a member deletes some of them while they wait to be indexed THEN no context shows them, before or after indexing', async () => {
			await warmUp(under.engine, clock);
			// Two such turns: the second arrives while most of the first waits, and the deletion while most of both do.
			const ids = [...(await longTurn(under.engine, clock, 0)), ...(await longTurn(under.engine, clock, TURN_MESSAGES))];
			// One the background reaches early, some it reaches late, one in the recent window.
			const deleted = [10, 45, 60, 95, 99];
			await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: deleted.map((at) => ids[at]!), kind: 'deleted' });
			const shows = async (at: number) => (await under.engine.buildContext(roomy(wordOf(at)))).text.includes(wordOf(at));
			for (const at of deleted) expect(await shows(at), wordOf(at)).toBe(false);
			await smallTalk(under.engine, clock);
			for (const at of deleted) expect(await shows(at), wordOf(at)).toBe(false);
			await under.engine.indexingIdle();
			for (const at of deleted) expect(await shows(at), wordOf(at)).toBe(false);
			// The others are all there.
			for (const [at, id] of ids.entries()) if (!deleted.includes(at)) expect(await timesFound(under.engine, at, id), wordOf(at)).toBe(1);
		});

		it('WHEN a member edits one of them while it waits to be indexed THEN only its new text shows, before and after indexing', async () => {
			await warmUp(under.engine, clock);
			const ids = await longTurn(under.engine, clock, 0);
			const edited = 30;
			const renamed = 1_000;
			const texts = { [ids[edited]!]: longText(renamed) };
			await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [ids[edited]!], kind: 'edited', texts });
			const shows = async (at: number) => (await under.engine.buildContext(roomy(wordOf(at)))).text.includes(wordOf(at));
			expect(await shows(edited)).toBe(false);
			await smallTalk(under.engine, clock);
			await under.engine.indexingIdle();
			expect(await shows(edited)).toBe(false);
			expect(await timesFound(under.engine, renamed, ids[edited]!)).toBe(1);
			expect(await timesFound(under.engine, edited + 1, ids[edited + 1]!)).toBe(1);
		});
	});
});

describe.each(backends)('an index grown past its share on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { indexCacheMb: 1 });

	it('GIVEN MEMORY_INDEX_CACHE_MB=1 WHEN long turns grow the index past half a MiB THEN the newest turn is found whole, each once', async () => {
		await warmUp(under.engine, clock);
		let ids: string[] = [];
		// A turn's index takes some 170 kB: the third outgrows the share, the fifth again after the trim.
		for (let round = 0; round < 5; round++) {
			ids = await longTurn(under.engine, clock, round * TURN_MESSAGES);
			await under.engine.buildContext(roomy(wordOf(round * TURN_MESSAGES)));
		}
		await smallTalk(under.engine, clock);
		await under.engine.indexingIdle();
		const from = 4 * TURN_MESSAGES;
		for (const [offset, id] of ids.entries()) expect(await timesFound(under.engine, from + offset, id), wordOf(from + offset)).toBe(1);
		// The oldest went with the trim: the index is the channel's newest part.
		expect(await relevantIds(under.engine, wordOf(0))).toEqual([]);
	});
});

/** A Map that counts the reads the engine makes through Keyv, and apart those of archive chunks. */
class ReadCountingMap extends Map<string, unknown> {
	public reads = 0;
	public chunkReads = 0;

	public override get(key: string) {
		this.reads++;
		if (/:chunk:\d+$/.test(key)) this.chunkReads++;
		return super.get(key);
	}
}

/** An engine on an in-memory store that outlives it (a restart opens another on the same map). */
function engineOnMap(indexCacheMb: number) {
	const map = new ReadCountingMap();
	const clock = new TestClock();
	const open = () =>
		MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, config: { sweepIntervalMinutes: 0, indexCacheMb }, now: clock.now });
	return { map, clock, open };
}

describe('GIVEN MEMORY_INDEX_CACHE_MB=1 (one channel’s index may take half a MiB) AND a channel of 4,000-character messages', () => {
	it('WHEN appends grow its index past that share, turn after turn THEN no context reads the archive again, and the newest are found', async () => {
		const { map, clock, open } = engineOnMap(1);
		const engine = await open();
		await warmUp(engine, clock);
		const readsPerContext: number[] = [];
		const chunkReadsPerContext: number[] = [];
		let ids: string[] = [];
		// Six turns hold 1.2 million characters: the index outgrows half a MiB in the second or third.
		for (let round = 0; round < 6; round++) {
			ids = await longTurn(engine, clock, round * TURN_MESSAGES);
			await smallTalk(engine, clock);
			await engine.indexingIdle();
			const [before, chunksBefore] = [map.reads, map.chunkReads];
			const newest = round * TURN_MESSAGES + TURN_MESSAGES - 1;
			expect(await timesFound(engine, newest, ids.at(-1)!), `round ${round}`).toBe(1);
			readsPerContext.push(map.reads - before);
			chunkReadsPerContext.push(map.chunkReads - chunksBefore);
		}
		// A context reads its few keys: never the archive's chunks, which an index dropped for its size would need. (The count of
		// other reads may differ by a read-back of a directory this host's Keyv confirms in the background meanwhile.)
		expect(chunkReadsPerContext, `reads per context: ${readsPerContext.join(', ')}`).toEqual([0, 0, 0, 0, 0, 0]);
		expect(Math.max(...readsPerContext)).toBeLessThan(20);
		// The trimmed index still holds the newest turn's messages beyond the newest chunks.
		const lastFrom = 5 * TURN_MESSAGES;
		for (const offset of [0, 20, 40]) expect(await timesFound(engine, lastFrom + offset, ids[offset]!), wordOf(lastFrom + offset)).toBe(1);
		await engine.close();
	}, 120_000);
});

describe('GIVEN a channel of 150 4,000-character messages AND the engine restarted', () => {
	it('THEN the first context indexes only the newest 512,000 characters, and once the rest is indexed all are found', async () => {
		const { clock, open } = engineOnMap(32);
		const first = await open();
		const ids: string[] = [];
		for (let round = 0; round < 3; round++) ids.push(...(await longTurn(first, clock, round * TURN_MESSAGES)));
		await smallTalk(first, clock);
		await first.close();

		const restarted = await open();
		// An archive of up to 2,000 messages loads whole, but no further back than 512,000 characters: 128 of these messages.
		// The newest is found at once; the oldest is not yet.
		expect(await timesFound(restarted, ids.length - 1, ids.at(-1)!)).toBe(1);
		expect(await timesFound(restarted, 0, ids[0]!)).toBe(0);
		await restarted.indexingIdle();
		for (const [at, id] of ids.entries()) expect(await timesFound(restarted, at, id), wordOf(at)).toBe(1);
		await restarted.close();
	}, 120_000);

	it('THEN with fifty of them (200,000 characters) the first context finds all', async () => {
		const { clock, open } = engineOnMap(32);
		const first = await open();
		const ids = await longTurn(first, clock, 0);
		await smallTalk(first, clock);
		await first.close();

		const restarted = await open();
		for (const [at, id] of ids.entries()) expect(await timesFound(restarted, at, id), wordOf(at)).toBe(1);
		await restarted.close();
	}, 120_000);
});

describe('GIVEN a context that has held the event loop for a while (SQLite, whose reads do not yield)', () => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backends[0]!, clock);

	/** Whether a callback queued right after the context starts runs before the context resolves; and the context. */
	async function othersRunDuring(request: ContextRequest): Promise<{ ranBetween: boolean; text: string }> {
		let ranBetween = false;
		let resolved = false;
		const pending = under.engine.buildContext(request).finally(() => (resolved = true));
		setImmediate(() => (ranBetween = !resolved));
		const { text } = await pending;
		await new Promise((resolve) => setImmediate(resolve));
		return { ranBetween, text };
	}

	it('WHEN each look at the clock finds 10 ms more THEN other work runs between its tiers, and the context is the same', async () => {
		await warmUp(under.engine, clock);
		await smallTalk(under.engine, clock);
		const request = ask({ query: 'small talk' });
		const still = await othersRunDuring(request);
		expect(still.ranBetween).toBe(false);

		let now = performance.now();
		const fast = vi.spyOn(performance, 'now').mockImplementation(() => (now += 10));
		try {
			const slow = await othersRunDuring(request);
			expect(slow.ranBetween).toBe(true);
			expect(slow.text).toBe(still.text);
		} finally {
			fast.mockRestore();
		}
	});
});
