/** The captures running now, so that an erasure can wait for those that started before it. */
export class CapturesInFlight {
	private readonly running = new Set<Promise<unknown>>();

	/** Follows `capture` until it settles; resolves as it does. */
	public async track<T>(capture: Promise<T>): Promise<T> {
		this.running.add(capture);
		try {
			return await capture;
		} finally {
			this.running.delete(capture);
		}
	}

	/** Resolves once every capture running now has settled. */
	public async settled(): Promise<void> {
		await Promise.allSettled([...this.running]);
	}
}
