/**
 * The calls a reply waits for (`recordTurn`, `buildContext`) running now. Background work (indexing the rest of a
 * long turn, loading an archive's older messages) waits for a moment none runs before each of its slices: a call
 * that awaits its store would otherwise wait behind a slice too, each time it awaits.
 */
export class ReplyCalls {
	private running = 0;
	private readonly waiting = new Set<() => void>();

	/** Runs `call`, counted as running until it settles. */
	public async run<T>(call: () => Promise<T>): Promise<T> {
		this.running++;
		try {
			return await call();
		} finally {
			if (--this.running === 0) this.release();
		}
	}

	/**
	 * Resolves in a turn of the event loop in which no call runs (after the settled call's own continuations, which run as
	 * microtasks), or after `maxWaitMs` at the latest, so that a bot that is never idle still gets its background work done.
	 */
	public async quiet(maxWaitMs: number): Promise<void> {
		const deadline = performance.now() + maxWaitMs;
		for (;;) {
			if (this.running > 0) await this.released(deadline - performance.now());
			await new Promise((resolve) => setImmediate(resolve));
			// A call that started meanwhile (its first await may be queued behind this turn) goes first.
			if (this.running === 0 || performance.now() >= deadline) return;
		}
	}

	/** Resolves once no call runs, or after `waitMs`. */
	private released(waitMs: number): Promise<void> {
		return new Promise<void>((resolve) => {
			const done = () => {
				clearTimeout(timer);
				this.waiting.delete(done);
				resolve();
			};
			const timer = setTimeout(done, Math.max(0, waitMs));
			this.waiting.add(done);
		});
	}

	private release(): void {
		for (const done of [...this.waiting]) done();
	}
}
