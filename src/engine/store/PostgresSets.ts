import type { NativeSets, RawWrite, SetChange } from './sets';
import { groupedByKey } from './SqliteSets';
import { likeEscape } from './SqliteStatements';

type Query = (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Keys and members of `changes` as two parallel arrays, for `UNNEST`. */
function columns(changes: readonly SetChange[]): [string[], string[]] {
	const pairs = changes.flatMap(({ key, members }) => members.map((member) => [key, member] as const));
	return [pairs.map(([key]) => key), pairs.map(([, member]) => member)];
}

/**
 * The sets of the PostgreSQL store, in a table beside keyv's (`<table>_sets`): one row per member, its primary key the
 * set's key then the member. Members compare byte by byte (`COLLATE "C"`), so a page reads the primary key's index in its
 * own order whatever the database's collation. Each call is one statement, which PostgreSQL applies whole; a batch of rows
 * and its additions are one statement too.
 */
export class PostgresSets implements NativeSets {
	private ready: Promise<void> | null = null;

	/**
	 * @param table The keyv table, quoted (`"schema"."table"`).
	 * @param sets The sets' table, quoted.
	 * @param wrote Told the values a batch wrote (the store's vacuum counts them).
	 */
	public constructor(
		private readonly query: Query,
		private readonly table: string,
		private readonly sets: string,
		private readonly wrote: (values: readonly string[]) => void
	) {}

	public async add(changes: readonly SetChange[]): Promise<void> {
		await this.run(
			`INSERT INTO ${this.sets} (key, member) SELECT * FROM UNNEST($1::text[], $2::text[]) ON CONFLICT DO NOTHING`,
			columns(changes)
		);
	}

	public async remove(changes: readonly SetChange[]): Promise<void> {
		await this.run(
			`DELETE FROM ${this.sets} AS row USING UNNEST($1::text[], $2::text[]) AS gone(key, member)
			WHERE row.key = gone.key AND row.member = gone.member`,
			columns(changes)
		);
	}

	public async members(keys: readonly string[]): Promise<string[][]> {
		const rows = await this.run(`SELECT key, member FROM ${this.sets} WHERE key = ANY($1) ORDER BY key, member`, [keys]);
		const byKey = new Map(groupedByKey(rows as { key: string; member: string }[]));
		return keys.map((key) => byKey.get(key) ?? []);
	}

	public async page(key: string, after: string | null, limit: number): Promise<string[]> {
		const rows =
			after === null
				? await this.run(`SELECT member FROM ${this.sets} WHERE key = $1 ORDER BY member LIMIT $2`, [key, limit])
				: await this.run(`SELECT member FROM ${this.sets} WHERE key = $1 AND member > $2 ORDER BY member LIMIT $3`, [key, after, limit]);
		return rows.map((row) => row.member as string);
	}

	public async delete(keys: readonly string[]): Promise<void> {
		await this.run(`DELETE FROM ${this.sets} WHERE key = ANY($1)`, [keys]);
	}

	public async writeWith(rows: readonly RawWrite[], adds: readonly SetChange[]): Promise<void> {
		// Statements in WITH run once and whole, read or not: the rows and the members land in one statement.
		await this.run(
			`WITH written AS (
				INSERT INTO ${this.table} (key, value) SELECT * FROM UNNEST($1::text[], $2::text[])
				ON CONFLICT (key) DO UPDATE SET value = excluded.value RETURNING 1
			), added AS (
				INSERT INTO ${this.sets} (key, member) SELECT * FROM UNNEST($3::text[], $4::text[]) ON CONFLICT DO NOTHING RETURNING 1
			)
			SELECT (SELECT count(*) FROM written) AS written, (SELECT count(*) FROM added) AS added`,
			[rows.map(({ key }) => key), rows.map(({ value }) => value), ...columns(adds)]
		);
		this.wrote(rows.map(({ value }) => value));
	}

	public async *iterate(namespace: string): AsyncGenerator<[string, string[]]> {
		const rows = await this.run(`SELECT key, member FROM ${this.sets} WHERE key LIKE $1 ESCAPE '\\' ORDER BY key, member`, [
			`${likeEscape(namespace)}:%`
		]);
		yield* groupedByKey(rows as { key: string; member: string }[]);
	}

	public async clear(namespace: string): Promise<void> {
		await this.run(`DELETE FROM ${this.sets} WHERE key LIKE $1 ESCAPE '\\'`, [`${likeEscape(namespace)}:%`]);
	}

	/** Runs `sql` once the table exists (created by the first call of this process). */
	private async run(sql: string, values: unknown[]): Promise<Record<string, unknown>[]> {
		this.ready ??= this.create().catch((error: unknown) => {
			this.ready = null;
			throw error;
		});
		await this.ready;
		return this.query(sql, values);
	}

	private async create(): Promise<void> {
		try {
			await this.query(
				`CREATE TABLE IF NOT EXISTS ${this.sets} (key VARCHAR(1024) NOT NULL, member TEXT COLLATE "C" NOT NULL, PRIMARY KEY (key, member))`
			);
		} catch (error) {
			// Two processes creating it at once: one of them meets the other's table (duplicate type or table).
			const { code } = error as { code?: string };
			if (code !== '23505' && code !== '42P07') throw error;
		}
	}
}
