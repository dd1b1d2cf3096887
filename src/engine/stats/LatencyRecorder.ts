/** Upper bounds, in milliseconds, of the latency buckets of `memory.stats().latency`; a last bucket takes what is slower. */
export const LATENCY_BUCKETS_MS: readonly number[] = Object.freeze([0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000]);

/**
 * How long one engine call took, as a histogram with fixed buckets (the same as Prometheus's, in
 * milliseconds, and not cumulative): plain JSON-able numbers.
 */
export interface LatencyHistogram {
	/** The buckets' upper bounds in milliseconds, ascending ({@link LATENCY_BUCKETS_MS}). */
	boundsMs: number[];
	/**
	 * Calls per bucket, one more than `boundsMs`: `counts[i]` took more than `boundsMs[i - 1]` and at
	 * most `boundsMs[i]`; the last counts the calls slower than the largest bound (`+Inf`). They add up to `count`.
	 */
	counts: number[];
	/** Calls measured: every call, answered or failed. */
	count: number;
	/** Their total time in milliseconds. */
	sumMs: number;
	/** The median, estimated from the buckets (linear inside a bucket, as Prometheus's `histogram_quantile`); null before any call. */
	p50Ms: number | null;
	/** The 99th percentile, estimated the same way; never above the largest bound. */
	p99Ms: number | null;
}

/** Counts call durations into {@link LATENCY_BUCKETS_MS}: an observation is a short scan and two additions, without allocating. */
export class LatencyRecorder {
	private readonly counts = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
	private count = 0;
	private sumMs = 0;

	public observe(ms: number): void {
		let bucket = 0;
		while (bucket < LATENCY_BUCKETS_MS.length && ms > LATENCY_BUCKETS_MS[bucket]!) bucket++;
		this.counts[bucket]!++;
		this.count++;
		this.sumMs += ms;
	}

	public snapshot(): LatencyHistogram {
		return {
			boundsMs: [...LATENCY_BUCKETS_MS],
			counts: [...this.counts],
			count: this.count,
			sumMs: this.sumMs,
			p50Ms: quantile(this.counts, 0.5),
			p99Ms: quantile(this.counts, 0.99)
		};
	}
}

/** Estimates quantile `q` of bucket `counts` over {@link LATENCY_BUCKETS_MS}; null when they are all 0. */
export function quantile(counts: readonly number[], q: number): number | null {
	const total = counts.reduce((sum, count) => sum + count, 0);
	if (total === 0) return null;
	const rank = q * total;
	let below = 0;
	for (let bucket = 0; bucket < counts.length; bucket++) {
		const count = counts[bucket]!;
		if (below + count >= rank && count > 0) {
			// Past the largest bound nothing tells how slow: the bound is the best answer, as in Prometheus.
			if (bucket === LATENCY_BUCKETS_MS.length) return LATENCY_BUCKETS_MS.at(-1)!;
			const lower = bucket === 0 ? 0 : LATENCY_BUCKETS_MS[bucket - 1]!;
			return lower + (LATENCY_BUCKETS_MS[bucket]! - lower) * ((rank - below) / count);
		}
		below += count;
	}
	return LATENCY_BUCKETS_MS.at(-1)!;
}
