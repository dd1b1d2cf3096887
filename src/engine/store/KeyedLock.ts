/**
 * Serialises async work per key inside one process, so that concurrent turns on the
 * same scope read-modify-write one after another and lose nothing.
 */
export class KeyedLock {
	private readonly tails = new Map<string, Promise<unknown>>();

	/** Runs `task` once every earlier task on `key` has settled. */
	public run<T>(key: string, task: () => Promise<T>): Promise<T> {
		const previous = this.tails.get(key) ?? Promise.resolve();
		const result = previous.then(task, task);
		const tail = result.catch(() => undefined);
		this.tails.set(key, tail);
		// Drop the entry once nothing is queued behind it, so the map stays as small as the live keys.
		void tail.then(() => {
			if (this.tails.get(key) === tail) this.tails.delete(key);
		});
		return result;
	}

	/** Runs `task` holding every key, taken in a fixed order so two callers never deadlock. */
	public runAll<T>(keys: readonly string[], task: () => Promise<T>): Promise<T> {
		const ordered = [...new Set(keys)].sort();
		const step = (index: number): Promise<T> => (index === ordered.length ? task() : this.run(ordered[index]!, () => step(index + 1)));
		return step(0);
	}

	/** Keys with work queued; zero when idle. */
	public get size(): number {
		return this.tails.size;
	}
}
