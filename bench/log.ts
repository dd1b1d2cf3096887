import { performance } from 'node:perf_hooks';
import type { MemoryLogger } from '../src/engine';
import { count } from './format';

/** A progress line on stderr, so stdout keeps only the report. */
export function progress(message: string): void {
	process.stderr.write(`[bench] ${message}\n`);
}

/** Where the engine's own warnings go while benchmarking: stderr, marked. */
export const engineLogger: MemoryLogger = {
	warn: (...values: unknown[]) => console.error('[bench] engine warning:', ...values),
	error: (...values: unknown[]) => console.error('[bench] engine error:', ...values)
};

/** Prints `done/total` and the rate since the last line: every 2 s for the first 10 s, then every 10 s, and at the end. */
export class ProgressCounter {
	private readonly started = performance.now();
	private lastPrinted = performance.now();
	private lastDone = 0;

	public constructor(
		private readonly label: string,
		private readonly total: number,
		private readonly unit: string
	) {}

	public update(done: number): void {
		const now = performance.now();
		const everyMs = now - this.started < 10_000 ? 2_000 : 10_000;
		if (done < this.total && now - this.lastPrinted < everyMs) return;
		const rate = ((done - this.lastDone) / (now - this.lastPrinted)) * 1000;
		this.lastPrinted = now;
		this.lastDone = done;
		progress(
			`${this.label}: ${count(done)}/${count(this.total)} ${this.unit} (${((now - this.started) / 1000).toFixed(1)} s, ${count(rate)} ` +
				`${this.unit}/s)`
		);
	}
}
