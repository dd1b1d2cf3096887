import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** Latencies of one operation, in milliseconds. */
export interface LatencySummary {
	count: number;
	mean: number;
	p50: number;
	p99: number;
	min: number;
	max: number;
}

/** Nearest-rank percentile of ascending `sorted` values (`p` from 0 to 100). */
export function percentile(sorted: readonly number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
	return sorted[rank - 1]!;
}

export function summarize(samples: readonly number[]): LatencySummary {
	const sorted = [...samples].sort((a, b) => a - b);
	const total = sorted.reduce((sum, value) => sum + value, 0);
	return {
		count: sorted.length,
		mean: sorted.length ? total / sorted.length : Number.NaN,
		p50: percentile(sorted, 50),
		p99: percentile(sorted, 99),
		min: sorted[0] ?? Number.NaN,
		max: sorted.at(-1) ?? Number.NaN
	};
}

/** Runs `operation` and returns its result with how long it took, in milliseconds. */
export async function timed<T>(operation: () => Promise<T>): Promise<[T, number]> {
	const start = performance.now();
	const result = await operation();
	return [result, performance.now() - start];
}

/** {@link timed}, with the longest the event loop waited meanwhile (`perf_hooks.monitorEventLoopDelay`, garbage collection included). */
export async function timedWithBlock<T>(operation: () => Promise<T>): Promise<{ result: T; ms: number; longestBlockMs: number }> {
	const delay = monitorEventLoopDelay({ resolution: 1 });
	delay.enable();
	const [result, ms] = await timed(operation);
	// A block in the call's last step is recorded when the monitor's timer next runs, after the call resolved.
	await sleep(2);
	delay.disable();
	return { result, ms, longestBlockMs: delay.max / 1e6 };
}

/** The same for a synchronous operation. */
export function timedSync<T>(operation: () => T): [T, number] {
	const start = performance.now();
	const result = operation();
	return [result, performance.now() - start];
}

/** `a / b`, or NaN when either is missing or b is zero. */
export function ratio(a: number | undefined, b: number | undefined): number {
	return a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? Number.NaN : a / b;
}
