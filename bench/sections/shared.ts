import type { MemoryEngine } from '../../src/engine';
import type { NaiveMemory } from '../naive';
import type { NaiveFigures, StorageGrowth } from '../results';
import { ratio, summarize, timed, timedSync, type LatencySummary } from '../stats';
import type { Channel, ChatWorkload } from '../workload';

/** The naive reference's summaries, with the engine's figures as ratios to them. */
export function naiveFigures(
	ours: { recordTurn: LatencySummary; buildContext: LatencySummary },
	naiveRecord: number[],
	naiveContext: number[]
): NaiveFigures {
	const recordTurn = summarize(naiveRecord);
	const buildContext = summarize(naiveContext);
	return {
		recordTurn,
		buildContext,
		oursOverNaive: {
			recordTurn: { p50: ratio(ours.recordTurn.p50, recordTurn.p50), p99: ratio(ours.recordTurn.p99, recordTurn.p99) },
			buildContext: { p50: ratio(ours.buildContext.p50, buildContext.p50), p99: ratio(ours.buildContext.p99, buildContext.p99) }
		}
	};
}

export function storageGrowth(beforeBytes: number | null, afterBytes: number | null, messages: number, measures: string): StorageGrowth {
	const grown = beforeBytes === null || afterBytes === null ? null : afterBytes - beforeBytes;
	return {
		beforeBytes,
		afterBytes,
		messages,
		bytesPer100kMessages: grown === null || messages === 0 ? null : (grown / messages) * 100_000,
		measures
	};
}

/** What each backend's size reading is. */
export const STORAGE_MEASURES = {
	sqlite: 'SQLite file + WAL',
	'keyv-sqlite': 'SQLite file + WAL',
	redis: 'Redis INFO used_memory delta (whole server)',
	postgres: "pg_total_relation_size('memory') delta (whole table)"
} as const;

/** Timed contexts for `requests`, one after the other, on the engine and (when given) on the naive reference. */
export async function timeContexts(
	engine: MemoryEngine,
	requests: ReturnType<ChatWorkload['request']>[],
	naive: NaiveMemory | null
): Promise<{ ours: number[]; naive: number[] }> {
	const ours: number[] = [];
	for (const request of requests) ours.push((await timed(() => engine.buildContext(request)))[1]);
	const reference: number[] = [];
	if (naive) for (const request of requests) reference.push(timedSync(() => naive.context(request))[1]);
	return { ours, naive: reference };
}

/**
 * `requests` in order after the engine opened: the first (cold) alone, the next `warmup` while V8 compiles the
 * context path, then the rest, which the figures are of; the naive reference answers the last two groups too.
 */
export async function timeContextPhases(
	engine: MemoryEngine,
	requests: ReturnType<ChatWorkload['request']>[],
	warmup: number,
	naive: NaiveMemory | null
): Promise<{ firstContextMs: number; warmupContexts: LatencySummary; contexts: { ours: number[]; naive: number[] } }> {
	const [, firstContextMs] = await timed(() => engine.buildContext(requests[0]!));
	const warming = await timeContexts(engine, requests.slice(1, 1 + warmup), naive);
	const contexts = await timeContexts(engine, requests.slice(1 + warmup), naive);
	return { firstContextMs, warmupContexts: summarize(warming.ours), contexts };
}

/** `samples` timed one-message turns in `channel`, recorded by the engine and (when given) the naive reference. */
export async function timeTurns(
	engine: MemoryEngine,
	workload: ChatWorkload,
	channel: Channel,
	samples: number,
	naive: NaiveMemory | null
): Promise<{ ours: number[]; naive: number[] }> {
	const ours: number[] = [];
	const reference: number[] = [];
	for (let at = 0; at < samples; at++) {
		const turn = workload.turn(channel, channel.members[at % channel.members.length]);
		ours.push((await timed(() => engine.recordTurn(turn)))[1]);
		if (naive) reference.push(timedSync(() => naive.record(turn))[1]);
	}
	return { ours, naive: reference };
}

export function errorText(error: unknown): string {
	return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
