import type { Worker } from 'node:worker_threads';
import { sqliteWorker } from './sqliteWorker';

/**
 * The worker's program (see sqliteWorker). It answers each message with one checkpoint on a connection of its own
 * (`PASSIVE`, or `TRUNCATE` when asked), with the frames the log held and whether it was in the way of another connection,
 * and closes that connection when told to.
 */
const PROGRAM = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
	// Never a new file: a store whose file was moved away goes on in the file it opened, and its copies then run on its thread.
	db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs, fileMustExist: true });
	// The checkpoint syncs the file as the checkpointing connection's setting says: the bot's setting.
	db.pragma('synchronous = ' + workerData.synchronous);
} catch (error) {
	// A plain Error reaches the bot's thread with its message; better-sqlite3's own error class arrives without it.
	throw new Error('Opening ' + workerData.path + ' failed: ' + (error instanceof Error ? error.message : String(error)));
}
parentPort.on('message', (message) => {
	if (message === 'close') {
		db.close();
		// Ends this thread only.
		process.exit(0);
	}
	try {
		const [result] = db.pragma('wal_checkpoint(' + (message === 'TRUNCATE' ? 'TRUNCATE' : 'PASSIVE') + ')');
		parentPort.postMessage({ done: true, frames: result.log, busy: result.busy === 1 });
	} catch (error) {
		parentPort.postMessage({ done: false, error: error instanceof Error ? error.message : String(error) });
	}
});
`;

/** A checkpoint's mode: `PASSIVE` copies what it can without waiting; `TRUNCATE` copies all of it and empties the log. */
export type LogCopyMode = 'PASSIVE' | 'TRUNCATE';

/** What a copy found: the frames the log held, and whether another connection kept it from copying them all. */
export interface LogCopy {
	frames: number;
	busy: boolean;
}

/** What opens an SQLite file's log copier. */
export interface LogCopierOptions {
	path: string;
	busyTimeoutMs: number;
	synchronous: 'NORMAL' | 'FULL';
}

/**
 * Copies an SQLite file's write-ahead log into the database (`PRAGMA wal_checkpoint(PASSIVE)`) from a worker thread, on
 * a connection of its own. On the bot's thread the copy held the event loop for as long as it took: a turn of fifty
 * 4,000-character messages of emoji writes some 1 MB to the log, and copying it took 7 to 20 ms here, after every such
 * turn. `PASSIVE` waits for no reader or writer, so the bot's connection goes on reading and committing meanwhile.
 * One copy runs at a time (the caller waits for one before asking the next).
 */
export class LogCopier {
	private readonly worker: Worker;
	/** Why the worker can no longer copy (it failed to start, or ended): every later copy rejects with it. */
	private failure: Error | null = null;
	private pending: { resolve: (copy: LogCopy) => void; reject: (error: Error) => void } | null = null;
	private readonly exited: Promise<void>;
	private closing = false;

	public constructor({ path, busyTimeoutMs, synchronous }: LogCopierOptions) {
		this.worker = sqliteWorker(PROGRAM, { path, busyTimeoutMs, synchronous });
		// The worker keeps the process up only while a copy or its closing is awaited: a bot that exits without closing its
		// engine is not kept alive by it.
		this.worker.unref();
		this.worker.on('message', ({ done, error, frames, busy }: { done: boolean; error?: string; frames?: number; busy?: boolean }) => {
			const { pending } = this;
			this.pending = null;
			if (!this.closing) this.worker.unref();
			if (done) pending?.resolve({ frames: frames ?? 0, busy: busy ?? false });
			else pending?.reject(new Error(`Copying the SQLite write-ahead log failed: ${error}`));
		});
		this.worker.on('error', (error) => this.fail(error));
		this.exited = new Promise((resolve) =>
			this.worker.once('exit', (code) => {
				this.fail(new Error(`The SQLite log copier's worker ended with code ${code}.`));
				resolve();
			})
		);
	}

	/** Whether the worker could not start, or ended: it copies nothing more. */
	public get gone(): boolean {
		return this.failure !== null;
	}

	/**
	 * Copies what the log holds into the database; `TRUNCATE` then empties the log, waiting for every other connection's
	 * writer meanwhile (the caller holds its own writes back). Rejects when the worker cannot.
	 */
	public copy(mode: LogCopyMode = 'PASSIVE'): Promise<LogCopy> {
		if (this.failure) return Promise.reject(this.failure);
		if (this.pending) return Promise.reject(new Error('A copy of the SQLite write-ahead log is already running.'));
		return new Promise((resolve, reject) => {
			this.pending = { resolve, reject };
			this.worker.ref();
			this.worker.postMessage(mode);
		});
	}

	/** Closes the worker's connection and ends it; a copy running ends first. */
	public async close(): Promise<void> {
		this.closing = true;
		if (!this.failure) {
			this.worker.ref();
			this.worker.postMessage('close');
		}
		await this.exited;
	}

	private fail(error: Error): void {
		this.failure ??= error;
		this.pending?.reject(this.failure);
		this.pending = null;
	}
}
