import { EventEmitter } from 'node:events';
import Database from 'better-sqlite3';

/** Options of {@link SqliteAdapter}. */
export interface SqliteAdapterOptions {
	/** How long a write waits for another process holding the file's lock. @default 5000 */
	busyTimeoutMs?: number;
	/** @default 'keyv' (the table @keyv/sqlite writes, so its files open unchanged) */
	table?: string;
}

/**
 * A Keyv store on one SQLite file through better-sqlite3. Its calls are synchronous and cost a few
 * microseconds, where an asynchronous binding pays a thread hop per call (about 0.13 ms here): the
 * engine makes several calls per reply. A batch (`setMany`, `deleteMany`) is one transaction, so it
 * lands whole or not at all, even in a process killed mid-write.
 */
export class SqliteAdapter extends EventEmitter {
	public readonly opts: { dialect: 'sqlite'; url: string; table: string };
	public namespace?: string;
	private readonly db: Database.Database;
	private readonly statements: {
		get: Database.Statement<[string], { value: string }>;
		getMany: Database.Statement<[string], { key: string; value: string }>;
		set: Database.Statement<[string, string]>;
		delete: Database.Statement<[string]>;
		clear: Database.Statement<[string]>;
		clearAll: Database.Statement<[]>;
		iterate: Database.Statement<[string], { key: string; value: string }>;
	};
	private readonly setBatch: (entries: readonly { key: string; value: string }[]) => void;
	private readonly deleteBatch: (keys: readonly string[]) => number;

	public constructor(path: string, options: SqliteAdapterOptions = {}) {
		super();
		const table = options.table ?? 'keyv';
		if (!/^\w+$/.test(table)) throw new Error(`Invalid SQLite table name "${table}".`);
		this.opts = { dialect: 'sqlite', url: `sqlite://${path}`, table };
		this.db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
		// WAL: readers never wait for the writer, and a commit appends to the log instead of rewriting pages.
		this.db.pragma('journal_mode = WAL');
		// Each commit reaches the disk before the call returns: a turn `recordTurn` resolved survives a power cut, not only a crash.
		this.db.pragma('synchronous = FULL');
		// Erasure must not leave deleted text readable in the file's free pages.
		this.db.pragma('secure_delete = ON');
		this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR(255) PRIMARY KEY, value TEXT)`);
		this.statements = {
			get: this.db.prepare(`SELECT value FROM ${table} WHERE key = ?`),
			getMany: this.db.prepare(`SELECT key, value FROM ${table} WHERE key IN (SELECT value FROM json_each(?))`),
			set: this.db.prepare(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
			delete: this.db.prepare(`DELETE FROM ${table} WHERE key = ?`),
			clear: this.db.prepare(`DELETE FROM ${table} WHERE key LIKE ? ESCAPE '\\'`),
			clearAll: this.db.prepare(`DELETE FROM ${table}`),
			iterate: this.db.prepare(`SELECT key, value FROM ${table} WHERE key LIKE ? ESCAPE '\\'`)
		};
		this.setBatch = this.db.transaction((entries) => {
			for (const { key, value } of entries) this.statements.set.run(key, value);
		});
		this.deleteBatch = this.db.transaction((keys: readonly string[]) => keys.reduce((deleted: number, key: string) => deleted + this.statements.delete.run(key).changes, 0));
	}

	public async get(key: string): Promise<string | undefined> {
		return this.statements.get.get(key)?.value;
	}

	public async getMany(keys: string[]): Promise<(string | undefined)[]> {
		const rows = new Map(this.statements.getMany.all(JSON.stringify(keys)).map((row) => [row.key, row.value]));
		return keys.map((key) => rows.get(key));
	}

	public async has(key: string): Promise<boolean> {
		return this.statements.get.get(key) !== undefined;
	}

	public async set(key: string, value: string): Promise<void> {
		this.statements.set.run(key, value);
	}

	public async setMany(entries: { key: string; value: string }[]): Promise<void> {
		this.setBatch(entries);
	}

	public async delete(key: string): Promise<boolean> {
		return this.statements.delete.run(key).changes > 0;
	}

	public async deleteMany(keys: string[]): Promise<boolean> {
		return this.deleteBatch(keys) > 0;
	}

	public async clear(): Promise<void> {
		if (this.namespace) this.statements.clear.run(`${likeEscape(this.namespace)}:%`);
		else this.statements.clearAll.run();
	}

	public async *iterator(namespace?: string): AsyncGenerator<[string, string]> {
		// Read whole first: a write while better-sqlite3 iterates would fail.
		for (const { key, value } of this.statements.iterate.all(namespace ? `${likeEscape(namespace)}:%` : '%')) yield [key, value];
	}

	/** Runs raw SQL (a pragma, a check), for tools and tests. */
	public query(sql: string): unknown[] {
		return this.db.prepare(sql).all();
	}

	public async disconnect(): Promise<void> {
		if (this.db.open) this.db.close();
	}
}

function likeEscape(text: string): string {
	return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
