import { EventEmitter } from 'node:events';
import Database from 'better-sqlite3';
import type { CompareAndSet, CompareAndSetMany, ConditionalWrite } from './compareAndSet';
import { ABSENT, ConnectionCache } from './ConnectionCache';
import { GroupCommit } from './GroupCommit';
import { LogCopies } from './LogCopies';
import { rewriteInWorker } from './rewriteInWorker';
import { SqliteSets } from './SqliteSets';
import { likeEscape, prepareStatements, type SqliteStatements } from './SqliteStatements';
import { storedValue, valueText } from './sqliteValues';

/** SQLite's `synchronous` setting in WAL mode, as `MEMORY_SQLITE_SYNCHRONOUS` names it. */
export type SqliteSynchronous = 'normal' | 'full';

/** Options of {@link SqliteAdapter}. */
export interface SqliteAdapterOptions {
	/** How long a write waits for another process holding the file's lock. @default 5000 */
	busyTimeoutMs?: number;
	/** @default 'keyv' (the table @keyv/sqlite writes, so its files open unchanged) */
	table?: string;
	/**
	 * `normal`: a commit is in the write-ahead log before the call returns, so it survives the process
	 * crashing; `full`: it is also synced to disk (it survives a power cut), which costs 0.4 to 1 ms per
	 * commit here, during which the event loop waits. @default 'normal'
	 */
	synchronous?: SqliteSynchronous;
	/**
	 * The log copier's worker (see {@link SqliteAdapter.checkpointLog}) asked for no copy this long is closed, and started
	 * again by the next copy (off this thread, in some 70 ms): a bot left idle holds no thread and connection for it, some
	 * 8 MiB. @default 10000
	 */
	logCopierIdleMs?: number;
}

/**
 * Frames (pages) of the write-ahead log past which the log copy empties it (`TRUNCATE`): a `PASSIVE` copy of a log that
 * commits keep appending to never ends with all of it copied, so SQLite never starts the log over and it grows to its own
 * checkpoint's 64 MiB. 1,024 pages are 4 MiB: a few dozen turns of chat.
 */
const LOG_FRAMES_BOUND = 1_024;

/** Rows a read may bring that the connection's cache keeps: a turn reads its entries, its archive's head and markers. */
const MAX_KEPT_READ = 64;

/* eslint-disable @typescript-eslint/require-await -- Keyv's store interface is promise-based: a SQLite failure must reject, not throw */
/**
 * A Keyv store on one SQLite file through better-sqlite3. Its calls are synchronous and cost a few
 * microseconds, where an asynchronous binding pays a thread hop per call (about 0.13 ms here): the
 * engine makes several calls per reply. A batch (`setMany`, `deleteMany`) lands whole or not at all,
 * even in a process killed mid-write. Values read or written are kept until another connection writes (ConnectionCache).
 */
export class SqliteAdapter extends EventEmitter {
	public readonly opts: { dialect: 'sqlite'; url: string; table: string };
	public namespace?: string;
	/** The store's sets, in the table `<table>_sets` of the same file (SqliteSets). */
	public readonly sets: SqliteSets;
	private readonly db: Database.Database;
	private readonly busyTimeoutMs: number;
	private readonly statements: SqliteStatements;
	private readonly cache: ConnectionCache;
	/** Writes waiting for the next commit: those of one turn of the event loop share it. */
	private readonly groupCommit: GroupCommit;
	/** The file's rewrite running in a worker, if one is: commits wait for it (see {@link vacuum}). */
	private rewriting: Promise<void> | null = null;
	/** Whether a commit landed since the log was last checkpointed (see {@link checkpointLog}). */
	private logWritten = false;
	/** Copies the log into the database from a worker thread (see {@link checkpointLog}). */
	private readonly logCopies: LogCopies;
	/** The last copy of the log, with the emptying of a log grown past {@link LOG_FRAMES_BOUND} that may follow it. */
	private boundingLog: Promise<void> = Promise.resolve();
	/** Set once {@link disconnect} began: no copy follows. */
	private closing = false;

	public constructor(path: string, options: SqliteAdapterOptions = {}) {
		super();
		const table = options.table ?? 'keyv';
		if (!/^\w+$/.test(table)) throw new Error(`Invalid SQLite table name "${table}".`);
		this.opts = { dialect: 'sqlite', url: `sqlite://${path}`, table };
		this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
		this.db = new Database(path, { timeout: this.busyTimeoutMs });
		// WAL: readers never wait for the writer, and a commit appends to the log instead of rewriting pages.
		this.db.pragma('journal_mode = WAL');
		const synchronous = options.synchronous === 'full' ? 'FULL' : 'NORMAL';
		this.db.pragma(`synchronous = ${synchronous}`);
		// Erasure must not leave deleted text readable in the file's free pages.
		this.db.pragma('secure_delete = ON');
		// The log is checkpointed between replies (LogCheckpoints); SQLite's own checkpoint, in the commit that fills the log,
		// stays for a log that grows past 64 MiB (16,384 pages) regardless.
		this.db.pragma('wal_autocheckpoint = 16384');
		this.statements = prepareStatements(this.db, table);
		const dataVersion = this.db.prepare('PRAGMA data_version').pluck();
		this.cache = new ConnectionCache(() => dataVersion.get() as number);
		this.groupCommit = new GroupCommit(
			this.db,
			() => this.rewriting !== null,
			() => {
				this.logWritten = true;
			}
		);
		this.sets = new SqliteSets(this.db, table, this.groupCommit, {
			write: (rows) => {
				for (const { key, value } of rows) this.statements.set.run(key, storedValue(value));
			},
			landed: (rows) => {
				for (const { key, value } of rows) this.cache.written(key, value);
			}
		});
		this.logCopies = new LogCopies(this.db, { busyTimeoutMs: this.busyTimeoutMs, synchronous, idleMs: options.logCopierIdleMs ?? 10_000 });
	}

	public async get(key: string): Promise<string | undefined> {
		return (await this.getMany([key]))[0];
	}

	public async getMany(keys: string[]): Promise<(string | undefined)[]> {
		const cached = this.cache.getMany(keys);
		const missing = keys.filter((_, index) => cached[index] === undefined);
		if (missing.length === 0) return cached.map((value) => (value === ABSENT ? undefined : value));
		const rows = new Map(this.statements.getMany.all(JSON.stringify(missing)).map((row) => [row.key, valueText(row.value)]));
		// A read of many rows at once (an erasure's or an export's every chunk) is not kept: no reply reads them again soon,
		// and they would push out the crude windows that the next turn and context read.
		if (missing.length <= MAX_KEPT_READ) for (const key of missing) this.cache.read(key, rows.get(key));
		return keys.map((key, index) => (cached[index] === ABSENT ? undefined : (cached[index] ?? rows.get(key))));
	}

	public async has(key: string): Promise<boolean> {
		return this.statements.get.get(key) !== undefined;
	}

	public async set(key: string, value: string): Promise<void> {
		await this.setMany([{ key, value }]);
	}

	public async setMany(entries: { key: string; value: string }[]): Promise<void> {
		await this.groupCommit.enqueue(
			() => {
				for (const { key, value } of entries) this.statements.set.run(key, storedValue(value));
			},
			() => {
				for (const { key, value } of entries) this.cache.written(key, value);
			}
		);
	}

	public async delete(key: string): Promise<boolean> {
		return this.deleteMany([key]);
	}

	public async deleteMany(keys: string[]): Promise<boolean> {
		return this.groupCommit.enqueue(
			() => keys.reduce((deleted, key) => deleted + this.statements.delete.run(key).changes, 0) > 0,
			() => {
				for (const key of keys) this.cache.delete(key);
			}
		);
	}

	public async clear(): Promise<void> {
		await this.groupCommit.enqueue(
			() => (this.namespace ? this.statements.clear.run(`${likeEscape(this.namespace)}:%`) : this.statements.clearAll.run()),
			() => this.cache.clear()
		);
		if (this.namespace) await this.sets.clear(this.namespace);
	}

	public async *iterator(namespace?: string): AsyncGenerator<[string, string]> {
		// Read whole first: a write while better-sqlite3 iterates would fail.
		const rows = this.statements.iterate.all(namespace ? `${likeEscape(namespace)}:%` : '%');
		for (const { key, value } of rows) yield [key, valueText(value)!];
	}

	/** See {@link CompareAndSet}: one statement inside the write transaction, which SQLite runs alone across every process. */
	public readonly compareAndSet: CompareAndSet = async (key, expected, next) => (await this.compareAndSetMany([{ key, expected, next }]))[0]!;

	/** See {@link CompareAndSetMany}: every change in the same write transaction. */
	public readonly compareAndSetMany: CompareAndSetMany = async (writes) =>
		this.groupCommit.enqueue(
			() => writes.map((write) => this.writeIf(write)),
			(written) =>
				writes.forEach(({ key, next }, index) => {
					if (!written[index]) return;
					if (next === undefined) this.cache.delete(key);
					else this.cache.written(key, next);
				})
		);

	/**
	 * Copies the write-ahead log into the database and truncates it to nothing, once the writes queued so far
	 * have landed: the `-wal` file then holds no frame of a deleted value. It runs in the log copier's worker, and this
	 * connection's commits wait in the queue meanwhile (on this thread they would wait in SQLite's busy handler, which
	 * sleeps the event loop), as they do for the file's rewrite.
	 */
	public async checkpoint(): Promise<void> {
		await this.groupCommit.enqueue(() => undefined);
		// A copy running would be in the way of the truncation, which would then report busy.
		await this.logCopies.copied();
		if (this.db.memory || !this.db.open) return;
		const emptying = this.logCopies.start('TRUNCATE');
		this.rewriting = emptying.then(
			() => undefined,
			() => undefined
		);
		try {
			await emptying;
		} finally {
			this.rewriting = null;
			if (this.groupCommit.waiting) this.groupCommit.commit();
		}
	}

	/**
	 * Copies what the write-ahead log holds into the database, without waiting for a writer or a reader (`PASSIVE`), in a
	 * worker thread (LogCopier): the event loop goes on meanwhile. The log is reused from its start once all of it was
	 * copied. Should the worker be gone, the copy runs on this thread, and the first such copy rejects with why. See
	 * LogCheckpoints.
	 */
	public checkpointLog(): Promise<void> {
		// Nothing written since the last one: nothing to copy (a log another process wrote is that process's to copy).
		// Nor while the file is rewritten: the rewrite's own checkpoint would find this one in its way. An in-memory
		// database has no log.
		if (!this.logWritten || !this.db.open || this.rewriting || this.logCopies.running || this.db.memory) return Promise.resolve();
		this.logWritten = false;
		const copying = this.logCopies.start().then(async ({ frames }) => {
			// A log never copied whole is never reused from its start, and grows while the bot is busy: emptied once it is this long.
			if (frames >= LOG_FRAMES_BOUND && !this.closing) await this.checkpoint();
		});
		this.boundingLog = copying.then(
			() => undefined,
			() => undefined
		);
		return copying;
	}

	/**
	 * Rewrites the database into fresh pages (`VACUUM`), then checkpoints, once the writes queued so far have landed:
	 * `secure_delete` zeroes a deleted row, but a page that B-tree balancing copied elsewhere may leave a stale copy of a
	 * cell in space the file no longer uses. The rewrite takes time in proportion to the file's size, so it runs in a worker
	 * thread (rewriteInWorker), and the event loop goes on meanwhile: reads are answered, and writes wait in the queue until
	 * it ends (on this connection they would wait for the worker's lock in SQLite's busy handler, which sleeps the thread).
	 * An in-memory database has no file for a worker to open, and is rewritten here.
	 */
	public async vacuum(): Promise<void> {
		await this.groupCommit.enqueue(() => undefined);
		// The rewrite's own checkpoint would find a copy running in its way.
		await this.logCopies.copied();
		if (this.db.memory) {
			this.db.exec('VACUUM');
			return;
		}
		const rewrite = rewriteInWorker(this.db.name, this.busyTimeoutMs);
		this.rewriting = rewrite.catch(() => undefined);
		try {
			await rewrite;
			// Emptied here too, with nothing of this connection's in the way: the worker's checkpoint may have met a read of it.
			this.db.pragma('wal_checkpoint(TRUNCATE)');
		} finally {
			this.rewriting = null;
			if (this.groupCommit.waiting) this.groupCommit.commit();
		}
	}

	/** Runs raw SQL (a pragma, a check), for tools and tests. */
	public query(sql: string): unknown[] {
		// It may change rows behind the cache's back: this connection's own writes do not move data_version.
		this.cache.clear();
		return this.db.prepare(sql).all();
	}

	public async disconnect(): Promise<void> {
		// A rewrite running and a copy of the log running end, the copier's connection closes, and writes still queued land, first.
		this.closing = true;
		await this.boundingLog;
		while (this.rewriting) await this.rewriting;
		await this.logCopies.copied();
		await this.logCopies.close();
		if (this.groupCommit.waiting) this.groupCommit.commit();
		this.cache.clear();
		if (this.db.open) this.db.close();
	}

	private writeIf({ key, expected, next }: ConditionalWrite): boolean {
		if (expected === undefined)
			return next === undefined ? !this.statements.get.get(key) : this.statements.insertNew.run(key, storedValue(next)).changes === 1;
		if (next === undefined) return this.statements.deleteIf.run(key, expected).changes === 1;
		return this.statements.replaceIf.run(storedValue(next), key, expected).changes === 1;
	}
}
/* eslint-enable @typescript-eslint/require-await */
