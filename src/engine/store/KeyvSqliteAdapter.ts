import KeyvSqlite from '@keyv/sqlite';
import type { CompareAndSet } from './compareAndSet';
import { KeyvSqliteSets } from './KeyvSqliteSets';
import type { SqliteSynchronous } from './SqliteAdapter';
import { createSetsTable } from './SqliteSets';
import { valueText } from './sqliteValues';

type Query = (sql: string, ...parameters: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * @keyv/sqlite (on the `sqlite3` binding), chosen with `MEMORY_SQLITE_DRIVER=@keyv/sqlite`, with what the engine's own
 * SQLite store offers: the same file settings (WAL, `synchronous`, `secure_delete`), a batch written in one statement,
 * the {@link CompareAndSet} of shared keys, the sets (KeyvSqliteSets), and the checkpoint and rewrite that forgetting asks
 * of the file. The file is the same as SqliteAdapter's (tables `keyv` and `keyv_sets`), so a store moves between the two
 * drivers as it is: rows the engine's driver stored compressed (sqliteValues.ts) are read as text; this one writes text.
 *
 * Its calls run one at a time: the binding would otherwise run them side by side on one connection, where a `VACUUM`
 * fails while another statement is open and a pragma may land after the first write.
 */
export class KeyvSqliteAdapter extends KeyvSqlite {
	public readonly sets: KeyvSqliteSets;
	/** A statement of the chain whose rows come back as stored: a compressed value as its BLOB. */
	private readonly runRaw: Query;

	private constructor(path: string, busyTimeoutMs: number) {
		super({ uri: `sqlite://${path}`, busyTimeout: busyTimeoutMs });
		const query = this.query as Query;
		let last: Promise<unknown> = Promise.resolve();
		const serial = <T>(task: () => Promise<T>): Promise<T> => {
			const next = last.then(task);
			last = next.catch(() => undefined);
			return next;
		};
		this.runRaw = (sql, ...parameters) => serial(() => query(sql, ...parameters));
		this.query = (async (sql: string, ...parameters: unknown[]) => textRows(await this.runRaw(sql, ...parameters))) as never;
		// One call of the chain: no other statement of the connection lands inside the transaction, or is rolled back with it.
		const transaction = (statements: readonly [string, ...unknown[]][]) =>
			serial(async () => {
				await query('BEGIN IMMEDIATE');
				try {
					for (const [sql, ...parameters] of statements) await query(sql, ...parameters);
					await query('COMMIT');
				} catch (error) {
					await query('ROLLBACK').catch(() => undefined);
					throw error;
				}
			});
		this.sets = new KeyvSqliteSets(this.table, (sql, ...parameters) => this.run(sql, ...parameters), transaction);
	}

	/** Every entry in one statement, so the batch lands whole or not at all. */
	public async setMany(entries: { key: string; value: string }[]): Promise<void> {
		if (entries.length === 0) return;
		await this.run(
			`INSERT INTO ${this.table} (key, value) SELECT json_extract(value, '$.key'), json_extract(value, '$.value') FROM json_each(?) ` +
				'WHERE true ON CONFLICT(key) DO UPDATE SET value = excluded.value',
			JSON.stringify(entries)
		);
	}

	/**
	 * See {@link CompareAndSet}: one statement, which SQLite applies alone across every process sharing the file. A row the
	 * engine's driver compressed is compared as its text: read as stored, then changed only if it is still those bytes.
	 */
	public readonly compareAndSet: CompareAndSet = async (key, expected, next) => {
		const { table } = this;
		if (expected === undefined && next === undefined) return (await this.run(`SELECT 1 FROM ${table} WHERE key = ?`, key)).length === 0;
		if (expected === undefined)
			return (
				(await this.run(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING RETURNING key`, key, next)).length === 1
			);
		const [row] = await this.runRaw(`SELECT value FROM ${table} WHERE key = ?`, key);
		if (!row || valueText(row.value) !== expected) return false;
		const rows =
			next === undefined
				? await this.run(`DELETE FROM ${table} WHERE key = ? AND value = ? RETURNING key`, key, row.value)
				: await this.run(`UPDATE ${table} SET value = ? WHERE key = ? AND value = ? RETURNING key`, next, key, row.value);
		return rows.length === 1;
	};

	/** Deletes the namespace's rows and its sets. */
	public override async clear(): Promise<void> {
		await super.clear();
		if (this.namespace) await this.sets.clear(this.namespace);
	}

	/** Copies the write-ahead log into the database and truncates it, after the calls made so far. */
	public async checkpoint(): Promise<void> {
		await this.run('PRAGMA wal_checkpoint(TRUNCATE)');
	}

	/** Rewrites the database into fresh pages, then checkpoints (see SqliteAdapter's `vacuum` for why). */
	public async vacuum(): Promise<void> {
		await this.run('VACUUM');
		await this.checkpoint();
	}

	private get table(): string {
		return this.opts.table as string;
	}

	private run(sql: string, ...parameters: unknown[]): Promise<Record<string, unknown>[]> {
		return (this.query as Query)(sql, ...parameters);
	}

	/** Opens the file (created if missing) with the settings the engine's SQLite store uses; see SqliteAdapter. */
	public static async open(path: string, options: { synchronous?: SqliteSynchronous; busyTimeoutMs?: number } = {}): Promise<KeyvSqliteAdapter> {
		const adapter = new KeyvSqliteAdapter(path, options.busyTimeoutMs ?? 5000);
		await adapter.run('PRAGMA journal_mode = WAL');
		await adapter.run(`PRAGMA synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
		await adapter.run('PRAGMA secure_delete = ON');
		await adapter.run(createSetsTable(adapter.table));
		return adapter;
	}
}

/** Rows with each `value` as text, a compressed one inflated (see sqliteValues.ts). */
function textRows(rows: Record<string, unknown>[]): Record<string, unknown>[] {
	for (const row of rows) if ('value' in row && Buffer.isBuffer(row.value)) row.value = valueText(row.value);
	return rows;
}
