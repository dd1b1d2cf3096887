import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ChatCorpus } from '../corpus';
import type { ColdStartRow } from '../results';
import { summarize, timed } from '../stats';
import { channelOf, ChatWorkload, openEngine } from '../workload';

/** Contexts timed while the older messages are indexed in the background, at most. */
const DURING_INDEXING_MAX = 200;

/** What the process measuring one cold start is told (as JSON, its one argument). */
export interface ColdStartArguments {
	storeUrl: string;
	/** The bench's clock once the store was seeded. */
	clock: number;
	/** The channel of server 0 to start cold (see channelOf), holding `size` messages of the vocabulary `varied`. */
	channel: number;
	size: number;
	varied: number | undefined;
	warmupContexts: number;
	samples: number;
}

/** The first context in a channel of a process that has just started, then the contexts after it (see coldStart.ts). */
export async function measureColdStart(args: ColdStartArguments): Promise<ColdStartRow> {
	const { storeUrl, size, varied, warmupContexts, samples } = args;
	const workload = new ChatWorkload(new ChatCorpus(303, varied));
	workload.clock.current = args.clock;
	const channel = channelOf(0, args.channel);
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
