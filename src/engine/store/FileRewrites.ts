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
 * How soon after a deletion the write-ahead log is emptied. Emptying it costs what the log holds and a sync to disk,
 * whatever was deleted: one emptying serves every deletion meanwhile (a moderation bot deletes in bursts), and the
 * deletion resolves without waiting for it.
 */
export const LOG_EMPTY_DELAY_MS = 1_000;

/**
 * What forgetting leaves to an SQLite store's files: a deleted row stays readable in the write-ahead log
 * until a checkpoint, and may stay in a page the database no longer uses until the file is rewritten. After
 * an erasure the log is emptied before the call resolves, after a deletion within {@link LOG_EMPTY_DELAY_MS}; the file
 * is rewritten within `MEMORY_SQLITE_REWRITE_SECONDS` after either (one rewrite for all of them meanwhile), since a
 * rewrite costs time in proportion to the file's size, and the bot's writes wait for it: not to what was forgotten.
 * `MEMORY_SQLITE_REWRITE_SECONDS=0` rewrites within the call. Nothing on other backends.
 */
export class FileRewrites {
	private timer: NodeJS.Timeout | null = null;
	/** Set while a deletion's emptying of the log waits for {@link LOG_EMPTY_DELAY_MS}. */
	private logTimer: NodeJS.Timeout | null = null;
	private running: Promise<void> = Promise.resolve();

	public constructor(
		private readonly file: RewritableFile | null,
		private readonly delayMs: number,
		/** Where a failed rewrite is told (the engine's logger). */
		private readonly logger: { error(...values: unknown[]): void }
	) {}

	/** The log emptied and the file rewritten before this resolves (the store sealed again, or sealed whole). */
	public async now(): Promise<void> {
		if (!this.file) return;
		this.cancel();
		await this.run(() => this.file!.vacuum());
	}

	/**
	 * After a deletion (`log: 'soon'`): the log emptied within {@link LOG_EMPTY_DELAY_MS}; after an erasure (`'now'`): before
	 * this resolves. The file is rewritten within the delay.
	 */
	public async soon(log: 'now' | 'soon'): Promise<void> {
		if (!this.file) return;
		if (this.delayMs === 0) return this.now();
		if (log === 'now') await this.emptyLog();
		else this.logTimer ??= setTimeout(() => void this.emptyLog(), LOG_EMPTY_DELAY_MS).unref();
		this.timer ??= setTimeout(() => {
			this.timer = null;
			void this.run(() => this.file!.vacuum()).catch((error: unknown) =>
				this.logger.error('[memory] rewriting the SQLite file failed:', error)
			);
		}, this.delayMs).unref();
	}

	/** Runs now the log's emptying that waits, and resolves once no emptying or rewrite runs (scripts, tests). */
	public async logEmptied(): Promise<void> {
		if (this.logTimer) await this.emptyLog();
		await this.running.catch(() => undefined);
	}

	/** Runs now the emptying and the rewrite that wait, and resolves once none runs: no file keeps what was forgotten (scripts, tests). */
	public async settled(): Promise<void> {
		if (this.timer) await this.now();
		else if (this.logTimer) await this.emptyLog();
		await this.running.catch(() => undefined);
	}

	/** Before the store closes: a rewrite still due runs now (and empties the log). */
	public async close(): Promise<void> {
		const due = this.timer !== null || this.logTimer !== null;
		this.cancel();
		await this.running.catch(() => undefined);
		if (due) await this.now();
	}

	/** The log's emptying, a deletion's as its timer runs it. */
	private async emptyLog(): Promise<void> {
		if (this.logTimer) clearTimeout(this.logTimer);
		this.logTimer = null;
		await this.run(() => this.file!.checkpoint()).catch((error: unknown) =>
			this.logger.error('[memory] emptying the SQLite write-ahead log failed:', error)
		);
	}

	private cancel(): void {
		if (this.timer) clearTimeout(this.timer);
		if (this.logTimer) clearTimeout(this.logTimer);
		this.timer = null;
		this.logTimer = null;
	}

	/** One at a time: a rewrite never runs beside another. */
	private run(work: () => Promise<void>): Promise<void> {
		const next = this.running.catch(() => undefined).then(work);
		this.running = next;
		return next;
	}
}
