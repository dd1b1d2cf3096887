import type Database from 'better-sqlite3';

/** A write waiting for the next commit; `landed` tells the caller's cache what it changed once committed. */
interface QueuedWrite {
	write: () => unknown;
	landed: ((result: unknown) => void) | undefined;
	resolve: (result: unknown) => void;
	reject: (error: unknown) => void;
}

/**
 * Group commit of one SQLite connection: writes called in the same turn of the event loop land in one transaction, so
 * turns recorded at once share one commit (and, with `synchronous: 'full'`, one sync to disk). Each call's writes land
 * whole, in call order, and its promise resolves once they are committed; a transaction that fails rejects every call
 * in it, and none of them is told as landed.
 */
export class GroupCommit {
	/** Writes waiting for the next commit, in call order. */
	private queue: QueuedWrite[] = [];
	private readonly transaction: (writes: readonly QueuedWrite[]) => unknown[];

	/**
	 * @param held Whether commits must wait (the file's rewrite): the caller commits what waited once it ends.
	 * @param committed Told after every transaction that committed.
	 */
	public constructor(
		db: Database.Database,
		private readonly held: () => boolean,
		private readonly committed: () => void
	) {
		this.transaction = db.transaction((writes: readonly QueuedWrite[]) => writes.map(({ write }) => write()));
	}

	/** Whether writes wait for a commit. */
	public get waiting(): boolean {
		return this.queue.length > 0;
	}

	/** Queues `write` for the next commit; `landed` runs once it is committed, before the promise resolves. */
	public enqueue<T>(write: () => T, landed?: (result: T) => void): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			this.queue.push({
				write,
				landed: landed as ((result: unknown) => void) | undefined,
				resolve: resolve as (result: unknown) => void,
				reject
			});
			if (this.queue.length === 1) setImmediate(this.commit);
		});
	}

	/** Commits every write waiting, in one transaction (nothing while {@link held}). */
	public readonly commit = (): void => {
		// The rewrite's end commits what waited.
		if (this.held()) return;
		const writes = this.queue;
		this.queue = [];
		let results: unknown[];
		try {
			results = this.transaction(writes);
			this.committed();
		} catch (error) {
			// Rolled back: the cache learns of a write only once it is committed.
			for (const { reject } of writes) reject(error);
			return;
		}
		writes.forEach(({ landed, resolve }, index) => {
			landed?.(results[index]);
			resolve(results[index]);
		});
	};
}
