/** What an SQLite store can do to its files (see SqliteAdapter). */
export interface RewritableFile {
	checkpoint(): Promise<void>;
	vacuum(): Promise<void>;
}

/** Whether a store's adapter is an SQLite file that can be checkpointed and rewritten. */
export function isRewritableFile(adapter: unknown): adapter is RewritableFile {
	return (
		typeof (adapter as Partial<RewritableFile> | null)?.checkpoint === 'function' &&
		typeof (adapter as Partial<RewritableFile>).vacuum === 'function'
	);
}

/**
 * What forgetting leaves to an SQLite store's files: a deleted row stays readable in the write-ahead log
 * until a checkpoint, and may stay in a page the database no longer uses until the file is rewritten. After
 * every erasure and deletion the log is checkpointed and truncated at once; the file is rewritten at once
 * after an erasure, and after a deletion within `MEMORY_SQLITE_REWRITE_SECONDS` (one rewrite for every
 * deletion meanwhile), since a rewrite costs time in proportion to the file's size. Nothing on other backends.
 */
export class FileRewrites {
	private timer: NodeJS.Timeout | null = null;
	private running: Promise<void> = Promise.resolve();

	public constructor(
		private readonly file: RewritableFile | null,
		private readonly delayMs: number,
		/** Where a failed rewrite is told (the engine's logger). */
		private readonly logger: { error(...values: unknown[]): void }
	) {}

	/** After an erasure: the log emptied and the file rewritten before this resolves. */
	public async now(): Promise<void> {
		if (!this.file) return;
		this.cancel();
		await this.run(() => this.file!.vacuum());
	}

	/** After a deletion: the log emptied before this resolves, the file rewritten within the delay. */
	public async soon(): Promise<void> {
		if (!this.file) return;
		if (this.delayMs === 0) return this.now();
		await this.run(() => this.file!.checkpoint());
		if (this.timer) return;
		this.timer = setTimeout(() => {
			this.timer = null;
			void this.run(() => this.file!.vacuum()).catch((error: unknown) =>
				this.logger.error('[memory] rewriting the SQLite file failed:', error)
			);
		}, this.delayMs);
		this.timer.unref();
	}

	/** Before the store closes: a rewrite still due runs now. */
	public async close(): Promise<void> {
		const due = this.timer !== null;
		this.cancel();
		await this.running.catch(() => undefined);
		if (due) await this.now();
	}

	private cancel(): void {
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
	}

	/** One at a time: a rewrite never runs beside another. */
	private run(work: () => Promise<void>): Promise<void> {
		const next = this.running.catch(() => undefined).then(work);
		this.running = next;
		return next;
	}
}
