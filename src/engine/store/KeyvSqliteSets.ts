import type { NativeSets, RawWrite, SetChange } from './sets';
import { groupedByKey } from './SqliteSets';
import { likeEscape } from './SqliteStatements';

type Run = (sql: string, ...parameters: unknown[]) => Promise<Record<string, unknown>[]>;

/** Statements run in one transaction, with no other call of the connection in between. */
type Transaction = (statements: readonly [sql: string, ...parameters: unknown[]][]) => Promise<void>;

/** (key, member) pairs of `changes`, as JSON for `json_each`. */
function pairs(changes: readonly SetChange[]): string {
	return JSON.stringify(changes.flatMap(({ key, members }) => members.map((member) => [key, member])));
}

/**
 * The sets of the @keyv/sqlite store, in the same table as SqliteSets (`<table>_sets`): each call one statement over
 * every member it names, and a batch of rows with its additions in one transaction.
 */
export class KeyvSqliteSets implements NativeSets {
	private readonly sets: string;

	public constructor(
		private readonly table: string,
		private readonly run: Run,
		private readonly transaction: Transaction
	) {
		this.sets = `${table}_sets`;
	}

	public async add(changes: readonly SetChange[]): Promise<void> {
		await this.run(...this.insert(changes));
	}

	public async remove(changes: readonly SetChange[]): Promise<void> {
		await this.run(
			`DELETE FROM ${this.sets} WHERE (key, member) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
			pairs(changes)
		);
	}

	public async members(keys: readonly string[]): Promise<string[][]> {
		const rows = await this.run(
			`SELECT key, member FROM ${this.sets} WHERE key IN (SELECT value FROM json_each(?)) ORDER BY key, member`,
			JSON.stringify(keys)
		);
		const byKey = new Map(groupedByKey(rows as { key: string; member: string }[]));
		return keys.map((key) => byKey.get(key) ?? []);
	}

	public async page(key: string, after: string | null, limit: number): Promise<string[]> {
		const rows =
			after === null
				? await this.run(`SELECT member FROM ${this.sets} WHERE key = ? ORDER BY member LIMIT ?`, key, limit)
				: await this.run(`SELECT member FROM ${this.sets} WHERE key = ? AND member > ? ORDER BY member LIMIT ?`, key, after, limit);
		return rows.map((row) => row.member as string);
	}

	public async delete(keys: readonly string[]): Promise<void> {
		await this.run(`DELETE FROM ${this.sets} WHERE key IN (SELECT value FROM json_each(?))`, JSON.stringify(keys));
	}

	public async writeWith(rows: readonly RawWrite[], adds: readonly SetChange[]): Promise<void> {
		await this.transaction([
			[
				`INSERT INTO ${this.table} (key, value) SELECT json_extract(value, '$.key'), json_extract(value, '$.value') FROM json_each(?) ` +
					'WHERE true ON CONFLICT(key) DO UPDATE SET value = excluded.value',
				JSON.stringify(rows.map(({ key, value }) => ({ key, value })))
			],
			this.insert(adds)
		]);
	}

	public async *iterate(namespace: string): AsyncGenerator<[string, string[]]> {
		const rows = await this.run(
			`SELECT key, member FROM ${this.sets} WHERE key LIKE ? ESCAPE '\\' ORDER BY key, member`,
			`${likeEscape(namespace)}:%`
		);
		yield* groupedByKey(rows as { key: string; member: string }[]);
	}

	public async clear(namespace: string): Promise<void> {
		await this.run(`DELETE FROM ${this.sets} WHERE key LIKE ? ESCAPE '\\'`, `${likeEscape(namespace)}:%`);
	}

	private insert(changes: readonly SetChange[]): [string, string] {
		return [
			`INSERT OR IGNORE INTO ${this.sets} (key, member) SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)`,
			pairs(changes)
		];
	}
}
