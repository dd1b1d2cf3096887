import type Database from 'better-sqlite3';
import type { GroupCommit } from './GroupCommit';
import type { NativeSets, RawWrite, SetChange } from './sets';
import { likeEscape } from './SqliteStatements';

/** Writes rows of the keyv table inside a transaction, and tells the connection's cache once they landed. */
export interface SqliteRows {
	write(rows: readonly RawWrite[]): void;
	landed(rows: readonly RawWrite[]): void;
}

/**
 * Creates the sets' table beside keyv's (as @keyv/sqlite's adapter here creates it, so either driver opens the other's
 * file): one row per member, its primary key the set's key then the member, so a set's members are read in order from the
 * table's own B-tree, and a page starts where the last ended.
 */
export function createSetsTable(table: string): string {
	return `CREATE TABLE IF NOT EXISTS ${table}_sets (key TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (key, member)) WITHOUT ROWID`;
}

/* eslint-disable @typescript-eslint/require-await -- a SQLite failure must reject, not throw */
/** The sets of the engine's SQLite store (better-sqlite3): writes go through the connection's group commit. */
export class SqliteSets implements NativeSets {
	private readonly insert: Database.Statement<[string, string]>;
	private readonly removeOne: Database.Statement<[string, string]>;
	private readonly all: Database.Statement<[string], string>;
	private readonly first: Database.Statement<[string, number], string>;
	private readonly next: Database.Statement<[string, string, number], string>;
	private readonly deleteSet: Database.Statement<[string]>;
	private readonly everyRow: Database.Statement<[string], { key: string; member: string }>;
	private readonly clearRows: Database.Statement<[string]>;

	public constructor(
		db: Database.Database,
		table: string,
		private readonly commits: GroupCommit,
		private readonly rows: SqliteRows
	) {
		const sets = `${table}_sets`;
		db.exec(createSetsTable(table));
		this.insert = db.prepare(`INSERT OR IGNORE INTO ${sets} (key, member) VALUES (?, ?)`);
		this.removeOne = db.prepare(`DELETE FROM ${sets} WHERE key = ? AND member = ?`);
		this.all = db.prepare<[string], string>(`SELECT member FROM ${sets} WHERE key = ? ORDER BY member`).pluck();
		this.first = db.prepare<[string, number], string>(`SELECT member FROM ${sets} WHERE key = ? ORDER BY member LIMIT ?`).pluck();
		this.next = db
			.prepare<[string, string, number], string>(`SELECT member FROM ${sets} WHERE key = ? AND member > ? ORDER BY member LIMIT ?`)
			.pluck();
		this.deleteSet = db.prepare(`DELETE FROM ${sets} WHERE key = ?`);
		this.everyRow = db.prepare(`SELECT key, member FROM ${sets} WHERE key LIKE ? ESCAPE '\\' ORDER BY key, member`);
		this.clearRows = db.prepare(`DELETE FROM ${sets} WHERE key LIKE ? ESCAPE '\\'`);
	}

	public async add(changes: readonly SetChange[]): Promise<void> {
		await this.commits.enqueue(() => this.added(changes));
	}

	public async remove(changes: readonly SetChange[]): Promise<void> {
		await this.commits.enqueue(() => {
			for (const { key, members } of changes) for (const member of members) this.removeOne.run(key, member);
		});
	}

	public async members(keys: readonly string[]): Promise<string[][]> {
		return keys.map((key) => this.all.all(key));
	}

	public async page(key: string, after: string | null, limit: number): Promise<string[]> {
		return after === null ? this.first.all(key, limit) : this.next.all(key, after, limit);
	}

	public async delete(keys: readonly string[]): Promise<void> {
		await this.commits.enqueue(() => {
			for (const key of keys) this.deleteSet.run(key);
		});
	}

	public async writeWith(rows: readonly RawWrite[], adds: readonly SetChange[]): Promise<void> {
		await this.commits.enqueue(
			() => {
				this.rows.write(rows);
				this.added(adds);
			},
			() => this.rows.landed(rows)
		);
	}

	public async *iterate(namespace: string): AsyncGenerator<[string, string[]]> {
		yield* groupedByKey(this.everyRow.all(`${likeEscape(namespace)}:%`));
	}

	public async clear(namespace: string): Promise<void> {
		await this.commits.enqueue(() => this.clearRows.run(`${likeEscape(namespace)}:%`));
	}

	private added(changes: readonly SetChange[]): void {
		for (const { key, members } of changes) for (const member of members) this.insert.run(key, member);
	}
}
/* eslint-enable @typescript-eslint/require-await */

/** Rows of (key, member), sorted by key, as each key with its members. */
export function* groupedByKey(rows: Iterable<{ key: string; member: string }>): Generator<[string, string[]]> {
	let current: [string, string[]] | null = null;
	for (const { key, member } of rows) {
		if (current?.[0] !== key) {
			if (current) yield current;
			current = [key, []];
		}
		current[1].push(member);
	}
	if (current) yield current;
}
