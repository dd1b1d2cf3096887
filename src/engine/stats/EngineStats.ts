import { isStoreError } from '../errors';
import type { SweepCounters } from '../maintenance/SweepSchedule';
import { type ContextTier, type MemoryContext, type RecordTurnResult, SKIP_REASONS, type SkipReason } from '../schemas';
import type { RecordStore } from '../records/RecordStore';
import type { StoreHealthCounters } from '../schemas/storeHealth';
import { summarizerCounters, type SummarizerCounters } from '../summaries/SummarizerCounters';
import { type LatencyHistogram, LatencyRecorder } from './LatencyRecorder';

/** Counters an operator can watch (`memory.stats()`). */
export interface MemoryCounters {
	/** Turns stored. */
	turnsRecorded: number;
	/** Turns skipped, with nothing written, by reason. */
	turnsSkipped: Record<SkipReason, number>;
	/** Turns not captured because the store failed (`recordTurn` rejected with `STORE_UNAVAILABLE` or `STORE_FAILURE`). */
	turnsFailed: number;
	/** Contexts built. */
	contextsBuilt: number;
	/** Contexts the store failed to give (the Sapphire layer then injects an empty one). */
	contextsFailed: number;
	/** Whether the store answers, and its outages. */
	store: StoreHealthCounters;
	/**
	 * Changes to keys shard processes share (user and author indexes, registries) that another process wrote over, found on reading
	 * them back and made again.
	 */
	sharedWritesRepaired: number;
	/**
	 * Reads of a stored value that could not be used (not JSON, another schema version, the wrong shape): each read as
	 * missing, the next write of its key replacing it. The engine logs each such key once.
	 */
	damagedValues: number;
	/** The background summarizer's calls, answers, caps, tokens and cost (`enabled: false` when it is off). */
	summarizer: SummarizerCounters;
	/** Sweeps completed and failed, and what the last one deleted. */
	sweeps: SweepCounters;
	/**
	 * BPE tokens injected, summed over the contexts built: per tier (`ContextBlock['tier']`), and
	 * `total`, the sum of `MemoryContext['tokens']` (the tiers and the blank lines between them).
	 */
	tokensInjected: Record<ContextTier, number> & { total: number };
	/** How long engine calls took, measured with `performance.now()` around the whole call (validation included). */
	latency: {
		/** `recordTurn`: every call, whether it wrote, skipped or failed. */
		capture: LatencyHistogram;
		/** `buildContext`: every call, whether it built a context or failed. */
		context: LatencyHistogram;
	};
}

/** The engine's counters, and the timing of its two calls on the reply path. */
export class EngineStats {
	public readonly summarizer: SummarizerCounters;
	public readonly sweeps: SweepCounters = { runs: 0, failures: 0, last: null };
	private readonly turns = {
		recorded: 0,
		failed: 0,
		skipped: Object.fromEntries(SKIP_REASONS.map((reason) => [reason, 0])) as Record<SkipReason, number>
	};

	private readonly contexts = { built: 0, failed: 0 };
	private readonly tokensInjected = { profile: 0, nudge: 0, summary: 0, relevant: 0, recent: 0, total: 0 };
	private readonly latency = { capture: new LatencyRecorder(), context: new LatencyRecorder() };

	public constructor(summarizerEnabled: boolean) {
		this.summarizer = summarizerCounters(summarizerEnabled);
	}

	/** Counts a turn capture left unwritten, with its reason. */
	public skipped(reason: SkipReason): void {
		this.turns.skipped[reason]++;
	}

	/** Times one `recordTurn` and counts what came of it. */
	public async capture(record: () => Promise<RecordTurnResult>): Promise<RecordTurnResult> {
		const started = performance.now();
		try {
			const result = await record();
			if (result.written) this.turns.recorded++;
			return result;
		} catch (error) {
			if (isStoreError(error)) this.turns.failed++;
			throw error;
		} finally {
			this.latency.capture.observe(performance.now() - started);
		}
	}

	/** Times one `buildContext` and counts the tokens it injected. */
	public async context(build: () => Promise<MemoryContext>): Promise<MemoryContext> {
		const started = performance.now();
		try {
			const context = await build();
			this.contexts.built++;
			for (const block of context.blocks) this.tokensInjected[block.tier] += block.tokens;
			this.tokensInjected.total += context.tokens;
			return context;
		} catch (error) {
			if (isStoreError(error)) this.contexts.failed++;
			throw error;
		} finally {
			this.latency.context.observe(performance.now() - started);
		}
	}

	/** A snapshot of every counter, plain JSON-able data. */
	public snapshot(store: RecordStore): MemoryCounters {
		return structuredClone({
			turnsRecorded: this.turns.recorded,
			turnsSkipped: this.turns.skipped,
			turnsFailed: this.turns.failed,
			contextsBuilt: this.contexts.built,
			contextsFailed: this.contexts.failed,
			summarizer: this.summarizer,
			sweeps: this.sweeps,
			tokensInjected: this.tokensInjected,
			...store.counters(),
			latency: { capture: this.latency.capture.snapshot(), context: this.latency.context.snapshot() }
		});
	}
}
