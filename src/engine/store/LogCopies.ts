import type Database from 'better-sqlite3';
import { type LogCopy, LogCopier, type LogCopyMode } from './LogCopier';

/** What {@link LogCopies} needs of the connection whose log it copies. */
export interface LogCopiesOptions {
	busyTimeoutMs: number;
	synchronous: 'NORMAL' | 'FULL';
	/** The copier's worker asked for no copy this long is closed (see SqliteAdapterOptions.logCopierIdleMs). */
	idleMs: number;
}

/**
 * The copies of one SQLite file's write-ahead log into its database (`PASSIVE`), one at a time: in the LogCopier's worker
 * thread, started by the first copy and closed once idle, so that an idle bot holds no thread for it; on the connection's
 * own thread once that worker could not start or ended. When to copy is the adapter's to decide (SqliteAdapter.checkpointLog).
 */
export class LogCopies {
	/** Copies the log from a worker thread; started with the first copy. */
	private copier: LogCopier | null = null;
	/** Whether the copier's worker could not start or ended: the log is then copied on this thread. */
	private copierGone = false;
	/** The copy of the log running, if one is. */
	private copying: Promise<void> | null = null;
	/** Closes the copier once it has been idle (see {@link LogCopiesOptions.idleMs}). */
	private copierIdle: NodeJS.Timeout | null = null;
	/** A copier's closing, which the store's own closing waits for. */
	private copierClosed: Promise<void> = Promise.resolve();

	public constructor(
		private readonly db: Database.Database,
		private readonly options: LogCopiesOptions
	) {}

	/** Whether a copy runs. */
	public get running(): boolean {
		return this.copying !== null;
	}

	/** Starts a copy; the first copy made on this thread, once the worker is gone, rejects with why. */
	public start(mode: LogCopyMode = 'PASSIVE'): Promise<LogCopy> {
		const copying = this.copyLog(mode).finally(() => {
			this.copying = null;
		});
		this.copying = copying.then(
			() => undefined,
			() => undefined
		);
		return copying;
	}

	/** Resolves once no copy of the log runs. */
	public async copied(): Promise<void> {
		while (this.copying) await this.copying;
	}

	/** Closes the copier, if one runs: its connection first, then its worker; resolves once every copier closed. */
	public async close(): Promise<void> {
		this.closeCopier();
		await this.copierClosed;
	}

	private async copyLog(mode: LogCopyMode): Promise<LogCopy> {
		if (this.copierGone) return this.copyHere(mode);
		if (this.copierIdle) clearTimeout(this.copierIdle);
		this.copier ??= new LogCopier({ path: this.db.name, busyTimeoutMs: this.options.busyTimeoutMs, synchronous: this.options.synchronous });
		const { copier } = this;
		try {
			const copy = await copier.copy(mode);
			this.copierIdle = setTimeout(() => this.closeCopier(), this.options.idleMs).unref();
			return copy;
		} catch (error) {
			if (!copier.gone) throw error;
			this.copierGone = true;
			this.copier = null;
			this.copyHere(mode);
			throw error;
		}
	}

	/** The copy on this connection's own thread. */
	private copyHere(mode: LogCopyMode): LogCopy {
		const [result] = this.db.pragma(`wal_checkpoint(${mode})`) as { busy: number; log: number }[];
		return { frames: result?.log ?? 0, busy: result?.busy === 1 };
	}

	/** Closes the copier, if one runs: its connection first, then its worker (see {@link copierClosed}). */
	private closeCopier(): void {
		if (this.copierIdle) clearTimeout(this.copierIdle);
		this.copierIdle = null;
		// The idle timer never fires during a copy: a copy clears it, and sets it again as it ends.
		const { copier } = this;
		this.copier = null;
		if (copier) this.copierClosed = Promise.all([this.copierClosed, copier.close()]).then(() => undefined);
	}
}
