import KeyvPostgres from '@keyv/postgres';
import type { CompareAndSet } from './compareAndSet';

/**
 * @keyv/postgres, with the {@link CompareAndSet} its read-modify-writes need to be atomic across shard processes:
 * each case is one statement, which PostgreSQL applies to the row atomically (two inserts of a missing row conflict,
 * and only one of them lands).
 */
export class PostgresAdapter extends KeyvPostgres {
	public readonly compareAndSet: CompareAndSet = async (key, expected, next) => {
		const table = `${quote(this.opts.schema as string)}.${quote(this.opts.table as string)}`;
		if (expected === undefined && next === undefined) {
			return (await this.query(`SELECT 1 FROM ${table} WHERE key = $1`, [key])).length === 0;
		}
		const rows =
			expected === undefined
				? await this.query(`INSERT INTO ${table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key`, [key, next])
				: next === undefined
					? await this.query(`DELETE FROM ${table} WHERE key = $1 AND value = $2 RETURNING key`, [key, expected])
					: await this.query(`UPDATE ${table} SET value = $3 WHERE key = $1 AND value = $2 RETURNING key`, [key, expected, next]);
		return rows.length === 1;
	};
}

function quote(identifier: string): string {
	return `"${identifier.replace(/"/g, '""')}"`;
}
