import { performance } from 'node:perf_hooks';
import { sqliteStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import type { MemoryResult, MemoryReading } from '../results';
import { summarize, timed } from '../stats';
import { channelOf, ChatWorkload, openEngine } from '../workload';

/** RSS and heap after a full garbage collection (when --expose-gc gave one). */
export function collectedMemory(): MemoryReading {
	const { gc } = globalThis as { gc?: () => void };
	if (gc) for (let round = 0; round < 3; round++) gc();
	const { rss, heapUsed } = process.memoryUsage();
	return { rss, heapUsed };
}

/**
 * V8's memory reducer hands back the heap room that garbage took once allocation has stopped, but when it starts depends on
 * when the last full collection ran: within 20 s of the work in one run here, after 90 s in another. The RSS holding still says
 * nothing until it has: the wait lasts until the heap V8 keeps is back near what it uses (it was 1.8× before, 1.04× after)
 * and the RSS has held still (within 1 %) for a few seconds, at least {@link MIN_WAIT_SECONDS}, at most {@link MAX_WAIT_SECONDS}.
 */
const MIN_WAIT_SECONDS = 25;
const STILL_SECONDS = 5;
const MAX_WAIT_SECONDS = 180;
const HANDED_BACK = 1.2;

/** The RSS once the process has been idle long enough for V8 to hand back the heap room that garbage took: read each second. */
async function idleMemory(): Promise<MemoryReading & { waitedSeconds: number }> {
	let lowest = process.memoryUsage().rss;
	let still = 0;
	let waited = 0;
	let handedBack = false;
	while ((waited < MIN_WAIT_SECONDS || still < STILL_SECONDS || !handedBack) && waited < MAX_WAIT_SECONDS) {
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		waited++;
		const { rss, heapTotal, heapUsed } = process.memoryUsage();
		if (rss < lowest * 0.99) still = 0;
		else still++;
		lowest = Math.min(lowest, rss);
		handedBack = heapTotal <= heapUsed * HANDED_BACK;
	}
	const { rss, heapUsed } = process.memoryUsage();
	return { rss, heapUsed, waitedSeconds: waited };
}

/**
 * A fresh SQLite engine, `turnsPerChannel` turns in each of `channels` channels (round after round,
 * so they are all active together) and one context in each, then the memory with the engine still open.
 */
export async function measureMemory(
	channels: number,
	servers: number,
	turnsPerChannel: number,
	processStart: MemoryReading,
	runtime: string
): Promise<MemoryResult> {
	const store = sqliteStore();
	const workload = new ChatWorkload(new ChatCorpus(303));
	const engine = await openEngine(store.storeUrl, workload.clock);
	try {
		// Made again for each call rather than kept, so the bench holds nothing per channel.
		const channelAt = (index: number) => channelOf(index % servers, index);
		const before = collectedMemory();
		const started = performance.now();
		progress(
			`memory: recording ${turnsPerChannel} turns in each of ${count(channels)} channels over ${count(servers)} servers, then one ` +
				`context in each…`
		);
		const counter = new ProgressCounter('memory: recorded', channels * turnsPerChannel, 'turns');
		const record: number[] = [];
		for (let round = 0; round < turnsPerChannel; round++) {
			for (let index = 0; index < channels; index++) {
				const turn = workload.turn(channelAt(index));
				record.push((await timed(() => engine.recordTurn(turn)))[1]);
				counter.update(record.length);
			}
		}
		const contexts: number[] = [];
		const contextCounter = new ProgressCounter('memory: built', channels, 'contexts');
		for (let index = 0; index < channels; index++) {
			const request = workload.request(channelAt(index));
			contexts.push((await timed(() => engine.buildContext(request)))[1]);
			contextCounter.update(contexts.length);
		}
		const after = collectedMemory();
		progress('memory: waiting, idle, for the RSS to settle…');
		const settled = await idleMemory();
		return {
			runtime,
			channels,
			servers,
			turns: record.length,
			contexts: contexts.length,
			gcAvailable: typeof (globalThis as { gc?: unknown }).gc === 'function',
			processStart,
			before,
			after,
			settled,
			seconds: (performance.now() - started) / 1000,
			recordTurn: summarize(record),
			buildContext: summarize(contexts)
		};
	} finally {
		await engine.close();
		await store.dispose();
	}
}
