import { performance } from 'node:perf_hooks';
import type { MemoryEngine } from '../../src/engine';
import { type BenchStore, sqliteStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import { NaiveMemory } from '../naive';
import type { BenchPlan } from '../options';
import type { LatencyRatio, ScalePoint, ScaleResult } from '../results';
import { ratio, summarize } from '../stats';
import { runColdStarts } from './coldStart';
import { type Channel, channelOf, ChatWorkload, MEMBERS_PER_SERVER, messagesIn, openEngine } from '../workload';
import { naiveFigures, STORAGE_MEASURES, storageGrowth, timeContextPhases, timeTurns } from './shared';

type ScalePlan = BenchPlan['scale'];

/** The most messages one seeding turn carries: a message from each member, and the persona's reply. */
const MAX_TURN_MESSAGES = MEMBERS_PER_SERVER + 1;

interface PlannedChannel {
	channel: Channel;
	messages: number;
}

/**
 * Section 2 (SQLite): one store of `storeMessages` messages over `channels` channels in `servers`
 * servers, seeded in busy turns in a shuffled order, so every channel's messages span the whole
 * seeding. Channels holding exactly `sizes` messages are then measured, smallest first: contexts first
 * (at exactly that size), then one-message turns. With `withNaive`, every turn and question also goes
 * through the naive reference.
 */
export async function runScale(plan: BenchPlan, withNaive: boolean): Promise<ScaleResult> {
	const store = sqliteStore();
	const workload = new ChatWorkload(new ChatCorpus(202));
	const naive = withNaive ? new NaiveMemory() : null;
	const engine = await openEngine(store.storeUrl, workload.clock);
	try {
		const { measured, all } = planChannels(plan.scale);
		const sizeBefore = await store.sizeBytes();
		const seeded = await seedStore(engine, workload, all, plan.scale, naive);
		const storage = storageGrowth(sizeBefore, await store.sizeBytes(), plan.scale.storeMessages, STORAGE_MEASURES.sqlite);
		const points: ScalePoint[] = [];
		for (const planned of measured) points.push(await measureChannel(engine, workload, planned, plan.scale, naive));
		const coldStarts = await runColdStarts(plan);
		return {
			storeMessages: plan.scale.storeMessages,
			channels: plan.scale.channels,
			servers: plan.scale.servers,
			seedTurns: seeded.turns,
			seedSeconds: seeded.seconds,
			storage,
			points,
			coldStarts,
			growth: growth(points)
		};
	} finally {
		await engine.close();
		await disposeQuietly(store);
	}
}

/** The measured channels (one per size), then the rest of the messages spread evenly over the other channels. */
function planChannels(plan: ScalePlan): { measured: PlannedChannel[]; all: PlannedChannel[] } {
	const channelAt = (index: number) => channelOf(index % plan.servers, index);
	const measured = plan.sizes.map((messages, index) => ({ channel: channelAt(index), messages }));
	const others = plan.channels - measured.length;
	const rest = plan.storeMessages - plan.sizes.reduce((sum, size) => sum + size, 0);
	if (others <= 0 || rest < 2 * others)
		throw new Error(`The scale store cannot hold ${count(rest)} more messages over ${count(others)} other channels (2 each at least).`);
	const even = Math.floor(rest / others);
	const spread = Array.from({ length: others }, (_, at) => ({
		channel: channelAt(measured.length + at),
		messages: even + (at < rest % others ? 1 : 0)
	}));
	return { measured, all: [...measured, ...spread] };
}

/** Splits a channel's messages into as few turns as fit, as even as possible (2 messages at least each). */
export function turnSizes(messages: number): number[] {
	const turns = Math.ceil(messages / MAX_TURN_MESSAGES);
	const base = Math.floor(messages / turns);
	return Array.from({ length: turns }, (_, at) => base + (at < messages % turns ? 1 : 0));
}

async function seedStore(engine: MemoryEngine, workload: ChatWorkload, channels: PlannedChannel[], plan: ScalePlan, naive: NaiveMemory | null) {
	const queues = channels.map((planned) => turnSizes(planned.messages));
	const order = workload.shuffled(queues.flatMap((sizes, index) => sizes.map(() => index)));
	progress(
		`scale: recording ${count(order.length)} turns (${count(plan.storeMessages)} messages, up to ${MAX_TURN_MESSAGES} a turn) over ` +
			`${count(plan.channels)} channels in ${count(plan.servers)} servers…`
	);
	const counter = new ProgressCounter('scale: recorded', plan.storeMessages, 'messages');
	const started = performance.now();
	let messages = 0;
	for (const index of order) {
		const turn = workload.busyTurn(channels[index]!.channel, queues[index]!.pop()! - 1);
		await engine.recordTurn(turn);
		naive?.record(turn);
		messages += messagesIn(turn);
		counter.update(messages);
	}
	return { turns: order.length, seconds: (performance.now() - started) / 1000 };
}

async function measureChannel(
	engine: MemoryEngine,
	workload: ChatWorkload,
	{ channel, messages }: PlannedChannel,
	{ warmupContexts: warmup, samples }: ScalePlan,
	naive: NaiveMemory | null
): Promise<ScalePoint> {
	progress(
		`scale: ${count(messages)}-message channel: ${count(1 + warmup + samples)} contexts (${count(warmup)} warming up), then ` +
			`${count(samples)} turns…`
	);
	const requests = Array.from({ length: 1 + warmup + samples }, () => workload.request(channel));
	const { firstContextMs, warmupContexts, contexts } = await timeContextPhases(engine, requests, warmup, naive);
	const turns = await timeTurns(engine, workload, channel, samples, naive);
	const recordTurn = summarize(turns.ours);
	const buildContext = summarize(contexts.ours);
	return {
		size: messages,
		firstContextMs,
		warmupContexts,
		buildContext,
		recordTurn,
		...(naive ? { naive: naiveFigures({ recordTurn, buildContext }, turns.naive, contexts.naive) } : {})
	};
}

/** Largest channel / smallest channel, for the engine and the naive reference. */
function growth(points: ScalePoint[]): ScaleResult['growth'] {
	const smallest = points[0]!;
	const largest = points.at(-1)!;
	const of = (a: { p50: number; p99: number }, b: { p50: number; p99: number }): LatencyRatio => ({
		p50: ratio(a.p50, b.p50),
		p99: ratio(a.p99, b.p99)
	});
	return {
		from: smallest.size,
		to: largest.size,
		recordTurn: of(largest.recordTurn, smallest.recordTurn),
		buildContext: of(largest.buildContext, smallest.buildContext),
		...(largest.naive && smallest.naive
			? {
					naive: {
						recordTurn: of(largest.naive.recordTurn, smallest.naive.recordTurn),
						buildContext: of(largest.naive.buildContext, smallest.naive.buildContext)
					}
				}
			: {})
	};
}

async function disposeQuietly(store: BenchStore): Promise<void> {
	await store.dispose().catch((error: unknown) => progress(`scale: cleaning up failed: ${String(error)}`));
}
