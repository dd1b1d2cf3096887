import { randomUUID } from 'node:crypto';
import { isOutage } from '../errors';
import { Records } from '../records/Records';
import type { MemoryLogger } from '../MemoryLogger';
import type { RecordStore } from '../records/RecordStore';
import type { SweepLease } from '../schemas';
import type { SweepResult } from './SweepResult';

/** How often the timer looks whether a sweep is due; the interval itself may be far longer. */
export const SWEEP_CHECK_MS = 60_000;

/** What the sweeps did, for `memory.stats()`. */
export interface SweepCounters {
	/** Sweeps run since the engine opened. */
	runs: number;
	/** Sweeps that failed. */
	failures: number;
	/** What the last sweep did; null before the first. */
	last: SweepResult | null;
}

/** Options of {@link SweepSchedule}. */
export interface SweepScheduleOptions {
	store: RecordStore;
	/** One sweep at the given time. */
	sweep: (now: number) => Promise<SweepResult>;
	now: () => number;
	/** 0: no timer. */
	intervalMs: number;
	logger: MemoryLogger;
	counters: SweepCounters;
}

/**
 * Runs the sweep on demand and on an unref'd timer, one at a time. The timer looks every minute
 * (or every interval, if shorter) whether anyone, in this process or another sharing the store,
 * swept within the interval; if not, it takes the lease (written, then read back) and sweeps.
 * A restart therefore does not delay the sweep by a whole interval, and shard processes do not
 * all sweep. Failures are logged, never thrown from the timer.
 */
export class SweepSchedule {
	private readonly owner = randomUUID();
	private timer: NodeJS.Timeout | null = null;
	private running: Promise<SweepResult> | null = null;
	private ticking: Promise<void> | null = null;
	private stopped = false;

	public constructor(private readonly options: SweepScheduleOptions) {}

	/** Starts the timer, unless the interval is 0. It never keeps the process alive. */
	public start(): void {
		if (this.options.intervalMs <= 0 || this.timer || this.stopped) return;
		this.timer = setInterval(() => this.tick(), Math.min(this.options.intervalMs, SWEEP_CHECK_MS));
		this.timer.unref();
	}

	/** Sweeps now, or joins the sweep already running. */
	public sweep(): Promise<SweepResult> {
		this.running ??= this.run().finally(() => {
			this.running = null;
		});
		return this.running;
	}

	/** Stops the timer and waits for a sweep in progress. */
	public async stop(): Promise<void> {
		this.stopped = true;
		if (this.timer) clearInterval(this.timer);
		this.timer = null;
		await this.ticking;
		await this.running?.catch(() => undefined);
	}

	private tick(): void {
		if (this.ticking || this.running || this.stopped) return;
		this.ticking = this.due()
			.then(async (due) => {
				if (due && !this.stopped) await this.sweep();
			})
			.catch((error: unknown) => {
				if (!isOutage(error)) this.options.logger.error('[memory] the background sweep failed:', error);
			})
			.finally(() => {
				this.ticking = null;
			});
	}

	/** True when nobody swept within the interval and this process now holds the lease. */
	private async due(): Promise<boolean> {
		const { store, now, intervalMs } = this.options;
		const lease = await store.get<SweepLease>(Records.sweepLease());
		if (lease && now() - lease.at < intervalMs) return false;
		await this.claim();
		return (await store.get<SweepLease>(Records.sweepLease()))?.owner === this.owner;
	}

	private async claim(): Promise<void> {
		const { store, now, intervalMs } = this.options;
		await store.set(Records.sweepLease(), { owner: this.owner, at: now() } satisfies SweepLease, Math.max(2 * intervalMs, 86_400_000));
	}

	private async run(): Promise<SweepResult> {
		const { counters } = this.options;
		try {
			// A sweep asked for by hand counts too: the timers wait a whole interval after it.
			await this.claim();
			const result = await this.options.sweep(this.options.now());
			counters.runs++;
			counters.last = result;
			return result;
		} catch (error) {
			counters.failures++;
			throw error;
		}
	}
}
