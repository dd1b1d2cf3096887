import Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src';
import { ARCHIVE_CHUNK_CHARS, ARCHIVE_CHUNK_SIZE } from '../../src/engine/archive/Archive';
import { backends, openEngine, TestClock } from '../support/backends';
import { isArchiveMarkerKey } from '../support/store-inspection';
import { ask, MAYA, said, turn } from '../support/turns';

const DAY = 86_400_000;

/** A Map that counts what the engine reads and writes through Keyv. */
class CountingMap extends Map<string, unknown> {
	public reads = 0;
	public writes = 0;
	public bytesWritten = 0;
	public chunkBytesWritten = 0;

	public override get(key: string) {
		this.reads++;
		return super.get(key);
	}

	public override set(key: string, value: unknown) {
		this.writes++;
		this.bytesWritten += JSON.stringify(value ?? null).length;
		if (/:chunk:\d+$/.test(key)) this.chunkBytesWritten += JSON.stringify(value ?? null).length;
		return super.set(key, value);
	}

	public reset() {
		this.reads = 0;
		this.writes = 0;
		this.bytesWritten = 0;
		this.chunkBytesWritten = 0;
	}
}

describe('GIVEN an archive growing from 10 to 5,000 messages', () => {
	it('THEN a turn writes the same amount whatever the archive holds', async () => {
		const map = new CountingMap();
		const clock = new TestClock();
		const engine = await MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, now: clock.now });
		const costAt = async (size: number) => {
			while ((await archived()) < size) {
				clock.advance(1000);
				await engine.recordTurn(turn({ text: `filler message at ${clock.current}`, reply: 'ok', timestamp: clock.current }));
			}
			map.reset();
			const samples = 20;
			for (let index = 0; index < samples; index++) {
				clock.advance(1000);
				await engine.recordTurn(
					turn({ text: `measured message ${index} with some ordinary words`, reply: 'sure thing', timestamp: clock.current })
				);
			}
			return { reads: map.reads / samples, writes: map.writes / samples, bytes: map.bytesWritten / samples };
		};
		const archived = () => Promise.resolve([...map.keys()].filter((key) => isArchiveMarkerKey(key)).length);
		const small = await costAt(10);
		const large = await costAt(5000);
		console.log(`[archive] per turn at 10 messages: ${JSON.stringify(small)}; at 5,000: ${JSON.stringify(large)}`);
		expect(small.writes).toBeGreaterThan(0);
		expect(small.bytes).toBeGreaterThan(0);
		expect(large.writes).toBeLessThanOrEqual(small.writes + 1);
		expect(large.reads).toBeLessThanOrEqual(small.reads + 1);
		// A write rewrites one chunk at most: bounded by the chunk size, not by the archive.
		expect(large.bytes).toBeLessThan(small.bytes + ARCHIVE_CHUNK_SIZE * 400);
		await engine.close();
	}, 120_000);
});

describe('GIVEN turns of 50 messages of 4,000 characters', () => {
	it('THEN the archive writes what each turn brings, not the earlier messages of its chunk again', async () => {
		const map = new CountingMap();
		const clock = new TestClock();
		const engine = await MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, now: clock.now });
		let turnChars = 0;
		for (let at = 0; at < 6; at++) {
			clock.advance(60_000);
			const history = Array.from({ length: 50 }, (_, index) =>
				said(MAYA, `marker${at}q${index} ${'lorem ipsum dolor sit amet '.repeat(150)}`.slice(0, 4_000), clock.current - 50 + index)
			);
			turnChars = history.reduce((sum, message) => sum + message.text.length, 0);
			map.reset();
			await engine.recordTurn(turn({ history, reply: 'ok', timestamp: clock.current }));
		}
		expect(map.chunkBytesWritten).toBeGreaterThan(turnChars);
		expect(map.chunkBytesWritten).toBeLessThan(turnChars + 2 * ARCHIVE_CHUNK_CHARS);
		// The first context is served from the newest chunks; the oldest message is found once the rest is indexed.
		await engine.buildContext(ask({ query: 'anything' }));
		await engine.indexingIdle();
		const { blocks } = await engine.buildContext(ask({ query: 'marker0q0', tokenBudget: 16_000 }));
		expect(blocks.find((block) => block.tier === 'relevant')?.text).toContain('marker0q0 lorem');
		await engine.close();
	}, 60_000);
});

describe.each(backends)('archive on $name', (backend) => {
	const clock = new TestClock();
	let engine: MemoryEngine;
	let dispose: () => Promise<void>;

	afterEach(() => dispose?.());

	describe('GIVEN the default retention', () => {
		beforeEach(async ({ skip }) => {
			if (backend.skipReason) skip(backend.skipReason);
			clock.current = Date.UTC(2026, 2, 2, 18, 0, 0);
			({ engine, dispose } = await openEngine(backend, { now: clock.now }));
		});

		it('THEN messages older than MEMORY_ARCHIVE_RETENTION_DAYS are never returned', async () => {
			await engine.recordTurn(turn({ text: 'the marmalade recipe uses seville oranges', timestamp: clock.current }));
			for (let day = 1; day <= 31; day++) {
				clock.current += DAY;
				await engine.recordTurn(turn({ text: `day ${day} chat`, timestamp: clock.current }));
			}
			clock.current -= 2 * DAY;
			const early = await engine.buildContext(ask({ query: 'marmalade recipe oranges' }));
			expect(early.text).toContain('seville oranges');
			clock.current += 2 * DAY;
			const late = await engine.buildContext(ask({ query: 'marmalade recipe oranges' }));
			expect(late.text).not.toContain('seville oranges');
		});

		it('THEN recording overlapping histories archives each message once', async () => {
			const first = said(MAYA, 'kiwi first', clock.current, '1000');
			const second = said(MAYA, 'kiwi second', clock.current + 1000, '1001');
			await engine.recordTurn(turn({ history: [first], timestamp: clock.current }));
			await engine.recordTurn(turn({ history: [first, second], timestamp: clock.current + 2000 }));
			for (let index = 0; index < 12; index++)
				await engine.recordTurn(turn({ text: `later ${index}`, timestamp: clock.current + 5000 + index }));
			const context = await engine.buildContext(ask({ query: 'kiwi' }));
			expect(context.text.match(/kiwi first/g)).toHaveLength(1);
			expect(context.text.match(/kiwi second/g)).toHaveLength(1);
		});
	});

	describe('GIVEN MEMORY_ARCHIVE_RETENTION_DAYS=0', () => {
		beforeEach(async ({ skip }) => {
			if (backend.skipReason) skip(backend.skipReason);
			({ engine, dispose } = await openEngine(backend, { now: clock.now, config: { archiveRetentionDays: 0 } }));
		});

		it('THEN there is no relevant tier, only the recent window', async () => {
			await engine.recordTurn(turn({ text: 'archived nowhere pineapple', timestamp: clock.current }));
			for (let index = 0; index < 12; index++) await engine.recordTurn(turn({ text: `later ${index}`, timestamp: clock.current + index + 1 }));
			const context = await engine.buildContext(ask({ query: 'pineapple' }));
			// What left the window is only in the digest.
			expect(context.blocks.map((block) => block.tier)).toEqual(['nudge', 'summary', 'recent']);
		});
	});
});

describe('GIVEN more channels than MEMORY_INDEX_CACHE_MB holds indexes for', () => {
	it('THEN the least recently used indexes leave memory, and a context there rebuilds its index from the store with the same hits', async () => {
		const map = new CountingMap();
		const clock = new TestClock();
		const engine = await MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, config: { indexCacheMb: 1 }, now: clock.now });
		const channels = Array.from({ length: 500 }, (_, at) => (810_000_000_000_100_000n + BigInt(at)).toString());
		for (const [at, channelId] of channels.entries()) {
			clock.advance(1000);
			await engine.recordTurn(turn({ channelId, text: `my locker code word is zebra${at}`, reply: 'noted', timestamp: clock.current }));
			// Enough turns after it that the code word is past the recent window: only the archive's index finds it.
			for (let filler = 0; filler < 5; filler++) {
				clock.advance(1000);
				await engine.recordTurn(turn({ channelId, text: `ordinary chatter ${filler}`, reply: 'sure', timestamp: clock.current }));
			}
		}
		const context = async (at: number) => {
			map.reset();
			const built = await engine.buildContext(ask({ channelId: channels[at]!, query: `what is my locker code word zebra${at}?` }));
			return { relevant: built.blocks.find((block) => block.tier === 'relevant')?.text ?? '', reads: map.reads };
		};
		// Each channel's index is loaded once, oldest first: 500 of them (some 3 KB each) do not fit in 1 MiB.
		// The code word itself is quoted by the summary's digest; the relevant tier shows the reply next to it, found through the index.
		const first: string[] = [];
		for (let at = 0; at < channels.length; at++) first.push((await context(at)).relevant);
		for (const relevant of first) expect(relevant).toContain('Sol: noted');
		const newest = await context(499);
		const evicted = await context(0);
		expect(newest.relevant).toBe(first[499]);
		expect(evicted.relevant).toBe(first[0]);
		// The evicted channel's context read its archive chunk again; the cached one did not.
		expect(evicted.reads).toBeGreaterThan(newest.reads);
		const again = await context(0);
		expect(again.reads).toBe(newest.reads);
		expect(again.relevant).toBe(evicted.relevant);
		await engine.close();
	}, 120_000);
});
