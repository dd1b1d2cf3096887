/**
 * PostgreSQL keeps every replaced row as a dead tuple until a vacuum: the store vacuums its table itself once a few MiB
 * were written (src/engine/store/PostgresVacuum.ts), off the reply path and one vacuum at a time.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/engine/store/PostgresAdapter';
import { PostgresVacuum, VACUUM_AFTER_BYTES } from '../../src/engine/store/PostgresVacuum';
import { backends, skipEachWhereUnavailable } from '../support/backends';

const postgres = backends.find((backend) => backend.name === 'postgres')!;
const postgresUrl = process.env.MEMORY_TEST_POSTGRES_URL;

describe('GIVEN the vacuum schedule', () => {
	it('THEN it vacuums once the bytes written reach the threshold, never twice at once, and again after the next threshold', async () => {
		let started = 0;
		let finish: () => void = () => undefined;
		const vacuum = new PostgresVacuum(() => {
			started++;
			return new Promise<void>((resolve) => (finish = resolve));
		}, 100);
		vacuum.wrote(['x'.repeat(99), undefined]);
		expect(started).toBe(0);
		vacuum.wrote(['x']);
		expect(started).toBe(1);
		vacuum.wrote(['x'.repeat(500)]);
		expect(started, 'a second vacuum while the first runs').toBe(1);
		finish();
		await vacuum.settled();
		vacuum.wrote(['x'.repeat(100)]);
		expect(started).toBe(2);
		finish();
		await vacuum.settled();
	});

	it('THEN a vacuum that fails is housekeeping lost, not an error for the write that started it', async () => {
		const vacuum = new PostgresVacuum(() => Promise.reject(new Error('connection lost')), 1);
		vacuum.wrote(['xx']);
		await expect(vacuum.settled()).resolves.toBeUndefined();
	});
});

describe('GIVEN a PostgreSQL table whose rows are rewritten over and over', () => {
	skipEachWhereUnavailable(postgres);
	it('THEN the store vacuums it itself, and the table stays near its live size', async () => {
		const table = `vacuum_${randomUUID().slice(0, 8)}`;
		const adapter = new PostgresAdapter({ uri: postgresUrl, table, keySize: 1024 } as never);
		const stats = async () => {
			const [row] = (await adapter.query(`SELECT vacuum_count::int AS vacuums FROM pg_stat_user_tables WHERE relname = $1`, [table])) as {
				vacuums: number;
			}[];
			return row?.vacuums ?? 0;
		};
		const size = async () =>
			Number(((await adapter.query(`SELECT pg_total_relation_size($1::regclass)::text AS bytes`, [table])) as { bytes: string }[])[0]!.bytes);
		try {
			// Ten chunk-sized values rewritten until twice the threshold was written: 8 MiB of dead rows without a vacuum.
			const value = (round: number, key: number) => JSON.stringify({ round, key, text: randomUUID().repeat(400) });
			const rounds = Math.ceil((2 * VACUUM_AFTER_BYTES) / (10 * value(0, 0).length));
			for (let round = 0; round < rounds; round++)
				await adapter.setMany(Array.from({ length: 10 }, (_, key) => ({ key: `k${key}`, value: value(round, key) })));
			// Statistics reach pg_stat_user_tables a moment after the vacuum ends.
			for (let waited = 0; waited < 10_000 && (await stats()) < 1; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
			expect(await stats(), 'vacuums of the table').toBeGreaterThanOrEqual(1);
			// Ten live values of some 15 kB, compressed in TOAST: without the vacuum the table held every round's copy (over 8 MiB).
			expect(await size()).toBeLessThan(4 * 1024 * 1024);
		} finally {
			await adapter.query(`DROP TABLE IF EXISTS ${table}`);
			await adapter.disconnect();
		}
	});
});
