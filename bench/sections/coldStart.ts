import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { MemoryEngine } from '../../src/engine';
import { sqliteStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import type { BenchPlan } from '../options';
import type { ColdStartRow } from '../results';
import { summarize, timed } from '../stats';
import { type Channel, channelOf, ChatWorkload, MEMBERS_PER_SERVER, openEngine } from '../workload';

/** Contexts timed while the older messages are indexed in the background, at most. */
const DURING_INDEXING_MAX = 200;

/**
 * Section 2b (SQLite, default MEMORY_INDEX_CACHE_MB): the first context after a restart in a channel of each size, for
 * ordinary chat and for varied chat (12 words a message from a vocabulary of 10,000): a store is seeded with one channel
 * of each size, closed, then opened again for each channel, whose first context is timed (cold), then contexts while its
 * older messages are indexed in the background, then the steady ones (warm). The process's heap (after a collection)
 * grows by what the engine keeps, and `perf_hooks.monitorEventLoopDelay` reads the longest block of the event loop.
 */
export async function runColdStarts(plan: BenchPlan): Promise<ColdStartRow[]> {
	const rows: ColdStartRow[] = [];
	for (const varied of [undefined, 10_000]) {
		const store = sqliteStore();
		try {
			const workload = new ChatWorkload(new ChatCorpus(303, varied));
			const channels = plan.scale.coldSizes.map((size, at) => ({ channel: channelOf(0, 900 + at), size }));
			const seeding = await openEngine(store.storeUrl, workload.clock);
			for (const { channel, size } of channels) await seed(seeding, workload, channel, size, varied);
			await seeding.close();
			for (const { channel, size } of channels) rows.push(await coldStart(store.storeUrl, workload, channel, size, varied, plan));
		} finally {
			await store.dispose().catch(() => undefined);
		}
	}
	return rows;
}

async function seed(engine: MemoryEngine, workload: ChatWorkload, channel: Channel, size: number, varied: number | undefined): Promise<void> {
	progress(`cold start: recording a ${count(size)}-message channel (${varied ? `${count(varied)}-word vocabulary` : 'ordinary chat'})…`);
	const counter = new ProgressCounter('cold start: recorded', size, 'messages');
	for (let messages = 0; messages < size; ) {
		const memberMessages = Math.min(MEMBERS_PER_SERVER, size - messages - 1);
		await engine.recordTurn(workload.busyTurn(channel, Math.max(1, memberMessages)));
		messages += Math.max(1, memberMessages) + 1;
		counter.update(messages);
	}
}

async function coldStart(
	storeUrl: string,
	workload: ChatWorkload,
	channel: Channel,
	size: number,
	varied: number | undefined,
	plan: BenchPlan
): Promise<ColdStartRow> {
	const { warmupContexts, samples } = plan.scale;
	global.gc?.();
	const heapBefore = heapBytes();
	const engine = await openEngine(storeUrl, workload.clock);
	const delay = monitorEventLoopDelay({ resolution: 1 });
	try {
		delay.enable();
		// The histogram's first tick only starts its clock: a block before it would go unseen.
		await new Promise((resolve) => setTimeout(resolve, 5));
		const [, coldMs] = await timed(() => engine.buildContext(workload.request(channel)));
		// A timer's turn after it, so the histogram has seen the block.
		await new Promise((resolve) => setTimeout(resolve, 2));
		const coldBlockMs = delay.max / 1e6;
		const started = performance.now();
		let indexed = false;
		void engine.indexingIdle().then(() => (indexed = true));
		const during: number[] = [];
		while (!indexed && during.length < DURING_INDEXING_MAX) {
			during.push((await timed(() => engine.buildContext(workload.request(channel))))[1]);
			await nextTurn();
		}
		await engine.indexingIdle();
		const indexedMs = performance.now() - started;
		// Each context in a turn of the event loop of its own, as a bot's replies are.
		for (let at = 0; at < warmupContexts; at++) {
			await engine.buildContext(workload.request(channel));
			await nextTurn();
		}
		const warm: number[] = [];
		for (let at = 0; at < samples; at++) {
			warm.push((await timed(() => engine.buildContext(workload.request(channel))))[1]);
			await nextTurn();
		}
		await new Promise((resolve) => setTimeout(resolve, 2));
		delay.disable();
		global.gc?.();
		return {
			vocabulary: varied ?? null,
			size,
			coldMs,
			coldBlockMs,
			duringIndexing: summarize(during),
			indexedMs,
			warm: summarize(warm),
			heapGrowthBytes: heapBytes() - heapBefore,
			rssBytes: process.memoryUsage().rss,
			longestBlockMs: delay.max / 1e6
		};
	} finally {
		delay.disable();
		await engine.close();
	}
}

function heapBytes(): number {
	const { heapUsed, arrayBuffers } = process.memoryUsage();
	return heapUsed + arrayBuffers;
}
