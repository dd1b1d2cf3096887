import KeyvPostgres from '@keyv/postgres';
import type { CompareAndSet, CompareAndSetMany } from './compareAndSet';
import { PostgresSets } from './PostgresSets';
import { PostgresVacuum } from './PostgresVacuum';

/**
 * @keyv/postgres, with the {@link CompareAndSet} its read-modify-writes need to be atomic across shard processes:
 * each case is one statement, which PostgreSQL applies to the row atomically (two inserts of a missing row conflict,
 * and only one of them lands).
 */
export class PostgresAdapter extends KeyvPostgres {
	/** The store's sets, in the table `<table>_sets` beside keyv's (PostgresSets). */
	public readonly sets = new PostgresSets(
		(sql, values) => this.query(sql, values),
		this.table,
		`${quote(this.opts.schema as string)}.${quote(`${this.opts.table as string}_sets`)}`,
		(values) => this.vacuum.wrote(values)
	);

	private readonly vacuum = new PostgresVacuum(() => this.query(`VACUUM (SKIP_LOCKED) ${this.table}`));

	public override async set(key: string, value: string): Promise<void> {
		await super.set(key, value);
		this.vacuum.wrote([value]);
	}

	public override async setMany(entries: { key: string; value: string }[]): Promise<void> {
		await super.setMany(entries);
		this.vacuum.wrote(entries.map(({ value }) => value));
	}

	/** Deletes the namespace's rows and its sets. */
	public override async clear(): Promise<void> {
		await super.clear();
		if (this.namespace) await this.sets.clear(this.namespace);
	}

	public override async disconnect(): Promise<void> {
		await this.vacuum.settled();
		await super.disconnect();
	}

	public readonly compareAndSet: CompareAndSet = async (key, expected, next) => {
		const { table } = this;
		if (expected === undefined && next === undefined) {
			return (await this.query(`SELECT 1 FROM ${table} WHERE key = $1`, [key])).length === 0;
		}
		const rows =
			expected === undefined
				? await this.query(`INSERT INTO ${table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key`, [key, next])
				: next === undefined
					? await this.query(`DELETE FROM ${table} WHERE key = $1 AND value = $2 RETURNING key`, [key, expected])
					: await this.query(`UPDATE ${table} SET value = $3 WHERE key = $1 AND value = $2 RETURNING key`, [key, expected, next]);
		this.vacuum.wrote([next]);
		return rows.length === 1;
	};

	/**
	 * See {@link CompareAndSetMany}: one statement, whose parts each change their own rows (every key once), so it applies
	 * atomically as the single-key statements do.
	 */
	public readonly compareAndSetMany: CompareAndSetMany = async (writes) => {
		if (writes.length === 0) return [];
		const { table } = this;
		const rows = await this.query(
			`WITH input AS (
				SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[]) AS change(key, expected, next)
			), updated AS (
				UPDATE ${table} AS row SET value = input.next FROM input
				WHERE row.key = input.key AND input.expected IS NOT NULL AND input.next IS NOT NULL AND row.value = input.expected
				RETURNING row.key
			), deleted AS (
				DELETE FROM ${table} AS row USING input
				WHERE row.key = input.key AND input.expected IS NOT NULL AND input.next IS NULL AND row.value = input.expected
				RETURNING row.key
			), inserted AS (
				INSERT INTO ${table} (key, value) SELECT key, next FROM input WHERE expected IS NULL AND next IS NOT NULL
				ON CONFLICT (key) DO NOTHING RETURNING key
			), absent AS (
				SELECT input.key FROM input WHERE input.expected IS NULL AND input.next IS NULL
				AND NOT EXISTS (SELECT 1 FROM ${table} AS row WHERE row.key = input.key)
			)
			SELECT key FROM updated UNION ALL SELECT key FROM deleted UNION ALL SELECT key FROM inserted UNION ALL SELECT key FROM absent`,
			[writes.map(({ key }) => key), writes.map(({ expected }) => expected ?? null), writes.map(({ next }) => next ?? null)]
		);
		this.vacuum.wrote(writes.map(({ next }) => next));
		const landed = new Set((rows as { key: string }[]).map((row) => row.key));
		return writes.map(({ key }) => landed.has(key));
	};

	private get table(): string {
		return `${quote(this.opts.schema as string)}.${quote(this.opts.table as string)}`;
	}
}

function quote(identifier: string): string {
	return `"${identifier.replace(/"/g, '""')}"`;
}
