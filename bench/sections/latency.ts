import { performance } from 'node:perf_hooks';
import type { MemoryEngine } from '../../src/engine';
import { type BenchStore, prepareStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import { NaiveMemory } from '../naive';
import type { BenchPlan } from '../options';
import type { BackendLatencyResult, ThroughputResult } from '../results';
import { summarize, timed, timedSync } from '../stats';
import { type Channel, channelOf, ChatWorkload, openEngine } from '../workload';
import { measureForgetting } from './forgetting';
import { measureSourceRecords } from './sourceRecords';
import { errorText, naiveFigures, STORAGE_MEASURES, storageGrowth, timeContextPhases } from './shared';

type LatencyPlan = BenchPlan['latency'];

/**
 * Section 1, per backend: one guild channel seeded with ordinary chat (a member message and a persona
 * reply per turn), the last turns timed; then, on the engine reopened, a cold first context, contexts while
 * V8 compiles the context path (the warm-up), and the timed contexts, a different question each; then
 * turns/second with 16 turns in flight over 16 channels.
 * With `withNaive`, the SQLite channel's turns and questions also go through the naive reference.
 */
export async function runLatency(plan: BenchPlan, withNaive: boolean): Promise<BackendLatencyResult[]> {
	const results: BackendLatencyResult[] = [];
	for (const backend of plan.backends) {
		const prepared = await prepareStore(backend);
		if (prepared.skipped !== undefined) {
			progress(`${backend}: skipped: ${prepared.skipped}`);
			results.push({ backend, skipped: prepared.skipped });
			continue;
		}
		try {
			results.push(await measureBackend(prepared.store, plan.latency, withNaive && backend === 'sqlite' ? new NaiveMemory() : null));
		} catch (error) {
			progress(`${backend}: failed: ${errorText(error)}`);
			results.push({ backend, error: errorText(error) });
		} finally {
			await prepared.store.dispose().catch((error: unknown) => progress(`${backend}: cleaning up failed: ${errorText(error)}`));
		}
	}
	return results;
}

async function measureBackend(store: BenchStore, plan: LatencyPlan, naive: NaiveMemory | null): Promise<BackendLatencyResult> {
	const { backend } = store;
	const workload = new ChatWorkload(new ChatCorpus(101));
	const channel = channelOf(0, 0);
	const options = { storeNamespace: store.namespace, ...store.config };
	let engine = await openEngine(store.storeUrl, workload.clock, options);
	try {
		const sizeBefore = await store.sizeBytes();
		const seeded = await seedChannel(engine, workload, channel, plan, naive, backend);
		const sizeAfter = await store.sizeBytes();

		progress(
			`${backend}: reopening the engine, then ${count(1 + plan.warmupContexts + plan.contextSamples)} contexts (the first cold, ` +
				`${count(plan.warmupContexts)} warming up)…`
		);
		await engine.close();
		const [reopened, reopenMs] = await timed(() => openEngine(store.storeUrl, workload.clock, options));
		engine = reopened;
		const requests = Array.from({ length: 1 + plan.warmupContexts + plan.contextSamples }, (_, at) =>
			workload.request(channel, channel.members[at % channel.members.length])
		);
		const { firstContextMs, warmupContexts, contexts } = await timeContextPhases(engine, requests, plan.warmupContexts, naive);

		progress(
			`${backend}: throughput, ${plan.throughputChannels} turns in flight over ${plan.throughputChannels} channels for ` +
				`${plan.throughputSeconds} s…`
		);
		const throughput = await measureThroughput(engine, workload, plan);
		const sourceRecords = await measureSourceRecords(engine, workload, channel, plan.recordSamples, backend);
		const forgetting = await measureForgetting(engine, workload, channel, seeded.messageIds, plan.deletionSamples, backend);

		const recordTurn = summarize(seeded.ours);
		const buildContext = summarize(contexts.ours);
		return {
			backend,
			channelMessages: plan.channelMessages,
			seedSeconds: seeded.seconds,
			recordTurn,
			reopenMs,
			firstContextMs,
			warmupContexts,
			buildContext,
			throughput,
			storage: storageGrowth(sizeBefore, sizeAfter, plan.channelMessages, STORAGE_MEASURES[backend]),
			forgetting,
			sourceRecords,
			...(naive ? { naive: naiveFigures({ recordTurn, buildContext }, seeded.naive, contexts.naive) } : {})
		};
	} finally {
		await engine.close();
	}
}

/** Records the channel's turns in order, timing the last `plan.recordSamples` of them. */
async function seedChannel(
	engine: MemoryEngine,
	workload: ChatWorkload,
	channel: Channel,
	plan: LatencyPlan,
	naive: NaiveMemory | null,
	label: string
) {
	const turns = Math.ceil(plan.channelMessages / 2);
	const timedFrom = Math.max(0, turns - plan.recordSamples);
	progress(
		`${label}: recording ${count(turns)} turns (${count(plan.channelMessages)} messages) in one channel, timing the last ` +
			`${count(turns - timedFrom)}…`
	);
	const counter = new ProgressCounter(`${label}: recorded`, turns, 'turns');
	const ours: number[] = [];
	const reference: number[] = [];
	const messageIds: string[] = [];
	const started = performance.now();
	for (let at = 0; at < turns; at++) {
		const turn = workload.turn(channel, channel.members[at % channel.members.length]);
		messageIds.push(turn.history[0]!.messageId!);
		const [, elapsed] = await timed(() => engine.recordTurn(turn));
		const naiveElapsed = naive ? timedSync(() => naive.record(turn))[1] : 0;
		if (at >= timedFrom) {
			ours.push(elapsed);
			if (naive) reference.push(naiveElapsed);
		}
		counter.update(at + 1);
	}
	return { ours, naive: reference, messageIds, seconds: (performance.now() - started) / 1000 };
}

/** Keeps one `recordTurn` in flight per channel until the time is up; counts the turns that resolved. */
async function measureThroughput(engine: MemoryEngine, workload: ChatWorkload, plan: LatencyPlan): Promise<ThroughputResult> {
	const channels = Array.from({ length: plan.throughputChannels }, (_, at) => channelOf(0, 1 + at));
	let resolved = 0;
	let failed = 0;
	let firstError: unknown;
	const started = performance.now();
	const deadline = started + plan.throughputSeconds * 1000;
	await Promise.all(
		channels.map(async (channel) => {
			while (performance.now() < deadline) {
				try {
					await engine.recordTurn(workload.turn(channel));
					resolved++;
				} catch (error) {
					failed++;
					firstError ??= error;
				}
			}
		})
	);
	const seconds = (performance.now() - started) / 1000;
	return {
		inFlight: channels.length,
		seconds,
		resolved,
		failed,
		turnsPerSecond: resolved / seconds,
		...(firstError === undefined ? {} : { firstError: errorText(firstError) })
	};
}
