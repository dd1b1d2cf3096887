/** How long a read back waits after a write: longer than another process's read-modify-write of the same key. */
export const READ_BACK_SETTLE_MS = 50;

const READ_BACK_ATTEMPTS = 8;

interface Confirmation {
	key: string;
	done: Promise<boolean>;
	/** Ends the wait before the next read, when one is running. */
	wake?: () => void;
}

/**
 * Shard processes share a few keys (a member's user and author indexes, the registries) and the
 * store has no transactions: a process that read such a key just before our write may write it back
 * without our change. So a change to a shared key is read back 50 to 100 ms later, in the background,
 * and made again until it stays.
 */
export class ReadBack {
	/** Changes found written over by another process, and made again. */
	public repairs = 0;
	private readonly pending = new Set<Confirmation>();
	/** Set on close: the reads back happen at once instead of after the settle time. */
	private closing = false;

	/**
	 * `read` reads a key as the store does. `needed` is false where the store's updates are atomic across
	 * processes: nothing can be written over, and every confirmation holds at once.
	 */
	public constructor(
		private readonly read: (key: string) => Promise<unknown>,
		private readonly options: { needed: boolean } = { needed: true }
	) {}

	/**
	 * Reads `key` back after the settle time and calls `repair` while `holds` says the change is not
	 * there (`holds` also answers true for a change no longer wanted), at most 8 times. Resolves with
	 * whether the change stayed; never rejects.
	 */
	public confirm<T>(key: string, holds: (stored: T | undefined) => boolean, repair: () => Promise<unknown>): Promise<boolean> {
		if (!this.options.needed) return Promise.resolve(true);
		const confirmation: Confirmation = { key, done: Promise.resolve(false) };
		confirmation.done = this.attempt(confirmation, holds, repair)
			.catch(() => false)
			.finally(() => this.pending.delete(confirmation));
		this.pending.add(confirmation);
		return confirmation.done;
	}

	/**
	 * Reads back now, without waiting the settle time, the changes made so far (to `key`, or to every
	 * key), and resolves once they are confirmed. A removal calls it first, so that no read back of an
	 * earlier change puts back what it removes.
	 */
	public async settled(key?: string): Promise<void> {
		const made = [...this.pending].filter((confirmation) => key === undefined || confirmation.key === key);
		for (const confirmation of made) confirmation.wake?.();
		await Promise.allSettled(made.map((confirmation) => confirmation.done));
	}

	/** From now on every read back happens at once (the store is about to close); resolves once none is pending. */
	public async close(): Promise<void> {
		this.closing = true;
		while (this.pending.size > 0) await this.settled();
	}

	private async attempt<T>(
		confirmation: Confirmation,
		holds: (stored: T | undefined) => boolean,
		repair: () => Promise<unknown>
	): Promise<boolean> {
		for (let attempt = 0; attempt < READ_BACK_ATTEMPTS; attempt++) {
			await this.settle(confirmation);
			if (holds((await this.read(confirmation.key)) as T | undefined)) return true;
			this.repairs++;
			await repair();
		}
		return false;
	}

	private settle(confirmation: Confirmation): Promise<void> {
		if (this.closing) return Promise.resolve();
		return new Promise((resolve) => {
			const timer = setTimeout(() => confirmation.wake!(), READ_BACK_SETTLE_MS * (1 + Math.random()));
			confirmation.wake = () => {
				clearTimeout(timer);
				confirmation.wake = undefined;
				resolve();
			};
		});
	}
}
