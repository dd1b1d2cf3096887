import type { ReplyCalls } from '../ReplyCalls';

/** An SQLite store whose write-ahead log can be checkpointed without waiting for a writer (see SqliteAdapter). */
export interface CheckpointableLog {
	checkpointLog(): Promise<void>;
}

/** Whether a store's adapter has a write-ahead log to checkpoint. */
export function isCheckpointableLog(adapter: unknown): adapter is CheckpointableLog {
	return typeof (adapter as Partial<CheckpointableLog> | null)?.checkpointLog === 'function';
}

/**
 * How often the log is checkpointed: what 50 ms of writes added to it is copied at once, so a burst of long turns never
 * leaves one large copy to make (docs/benchmarks.md, "Measured choices in the code"). When nothing was written since the
 * last one, the adapter does nothing (SqliteAdapter.checkpointLog).
 */
const EVERY_MS = 50;
/** A checkpoint waits for a moment no reply's call runs, this long at most. */
const MAX_WAIT_MS = 50;

/**
 * Checkpoints an SQLite store's write-ahead log between replies. Left to SQLite, the commit that fills the log (4 MiB)
 * copies it into the database and syncs the file, and the `recordTurn` that made it waited. Here the copy starts
 * when no `recordTurn` or `buildContext` runs, and runs in a worker thread (SqliteAdapter.checkpointLog), so that the
 * event loop goes on meanwhile; the adapter keeps SQLite's own checkpoint for a log that reaches 64 MiB regardless.
 */
export class LogCheckpoints {
	private timer: NodeJS.Timeout | null = null;
	private running: Promise<void> = Promise.resolve();
	private stopped = false;

	public constructor(
		private readonly log: CheckpointableLog,
		private readonly replyCalls: ReplyCalls,
		private readonly onError: (error: unknown) => void
	) {
		this.next();
	}

	/** Stops, once a checkpoint running has ended. */
	public async stop(): Promise<void> {
		this.stopped = true;
		if (this.timer) clearTimeout(this.timer);
		await this.running;
	}

	/** The next checkpoint, {@link EVERY_MS} after the last one ended (one never overlaps the next). */
	private next(): void {
		if (this.stopped) return;
		this.timer = setTimeout(() => {
			this.running = this.checkpoint().finally(() => this.next());
		}, EVERY_MS);
		this.timer.unref();
	}

	private async checkpoint(): Promise<void> {
		await this.replyCalls.quiet(MAX_WAIT_MS);
		if (this.stopped) return;
		try {
			await this.log.checkpointLog();
		} catch (error) {
			this.onError(error);
		}
	}
}
