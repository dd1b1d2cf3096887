import type { MemoryEngine } from '../../src/engine';
import { sqliteStore } from '../backends';
import { type ChildProgram, childProgram, runChild } from '../child';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import type { BenchPlan } from '../options';
import type { ColdStartRow } from '../results';
import { type Channel, channelOf, ChatWorkload, MEMBERS_PER_SERVER, openEngine } from '../workload';
import type { ColdStartArguments } from './coldStartWork';

/**
 * Section 2b (SQLite, default MEMORY_INDEX_CACHE_MB): the first context after a restart in a channel of each size, for
 * ordinary chat and for varied chat (12 words a message from a vocabulary of 10,000): a store is seeded with one channel
 * of each size and closed; then, as a bot restarts, a new process opens it for each channel (coldStartWork.ts), whose
 * first context is timed (cold), then contexts while its older messages are indexed in the background, then the steady
 * ones (warm). The process's heap (after a collection) grows by what the engine keeps, and
 * `perf_hooks.monitorEventLoopDelay` reads the longest block of the event loop.
 */
export async function runColdStarts(plan: BenchPlan): Promise<ColdStartRow[]> {
	const rows: ColdStartRow[] = [];
	const program = await childProgram('coldStartChild.ts');
	try {
		for (const varied of [undefined, 10_000]) rows.push(...(await coldStarts(program, varied, plan)));
	} finally {
		program.cleanup();
	}
	return rows;
}

/** Seeds a store with one channel of each size, then starts each of them cold in a process of its own. */
async function coldStarts(program: ChildProgram, varied: number | undefined, plan: BenchPlan): Promise<ColdStartRow[]> {
	const store = sqliteStore();
	try {
		const workload = new ChatWorkload(new ChatCorpus(303, varied));
		const channels = plan.scale.coldSizes.map((size, at) => ({ number: 900 + at, size }));
		const seeding = await openEngine(store.storeUrl, workload.clock);
		for (const { number, size } of channels) await seed(seeding, workload, channelOf(0, number), size, varied);
		await seeding.close();
		const { warmupContexts, samples } = plan.scale;
		const rows: ColdStartRow[] = [];
		for (const { number, size } of channels) {
			const args: ColdStartArguments = {
				storeUrl: store.storeUrl,
				clock: workload.clock.current,
				channel: number,
				size,
				varied,
				warmupContexts,
				samples
			};
			rows.push(await runChild<ColdStartRow>(program, [JSON.stringify(args)]));
		}
		return rows;
	} finally {
		await store.dispose().catch(() => undefined);
	}
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
