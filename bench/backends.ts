import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { likeEscape } from '../src/engine/store/SqliteStatements';
import { redact } from '../src/engine/store/backends';
import type { MemoryConfig } from '../src/engine';
import type { BackendName } from './options';

/** A fresh, empty store for one measurement, and what the bench needs around the engine. */
export interface BenchStore {
	backend: BackendName;
	storeUrl: string;
	/** The engine's `storeNamespace`: unique per store, so a shared Redis or PostgreSQL keeps other data apart. */
	namespace: string;
	/** Settings the backend needs besides its URL (the SQLite driver). */
	config: Partial<MemoryConfig>;
	/**
	 * What the store occupies now, in bytes: the SQLite file and its WAL; the whole `memory` table on
	 * PostgreSQL (`pg_total_relation_size`); the whole server's `used_memory` on Redis. Compare two readings.
	 */
	sizeBytes(): Promise<number | null>;
	/** Deletes every key the bench wrote (or the SQLite directory) and closes the bench's own connection. */
	dispose(): Promise<void>;
}

export type PreparedStore = { store: BenchStore; skipped?: undefined } | { store?: undefined; skipped: string };

/** The PostgreSQL table @keyv/postgres writes for the engine (see src/engine/store/backends.ts), and the store's sets beside it. */
const POSTGRES_TABLE = 'memory';
const POSTGRES_SETS = 'memory_sets';
const CONNECT_TIMEOUT_MS = 2_000;

export function redisUrl(): string {
	return process.env.MEMORY_BENCH_REDIS_URL || process.env.MEMORY_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
}

export function postgresUrl(): string {
	return process.env.MEMORY_BENCH_POSTGRES_URL || process.env.MEMORY_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

/** `bench-<time>-<random>`: letters, digits and "-", as `storeNamespace` accepts. */
export function uniqueNamespace(): string {
	return `bench-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** Opens what `backend` needs, or says why it cannot be benchmarked here. */
export async function prepareStore(backend: BackendName): Promise<PreparedStore> {
	switch (backend) {
		case 'sqlite':
			return { store: sqliteStore() };
		case 'keyv-sqlite':
			return { store: { ...sqliteStore(), backend, config: { sqliteDriver: '@keyv/sqlite' } } };
		case 'redis':
			return redisStore(redisUrl());
		case 'postgres':
			return postgresStore(postgresUrl());
	}
}

export function sqliteStore(): BenchStore {
	const directory = mkdtempSync(join(tmpdir(), 'memory-bench-'));
	const path = join(directory, 'x.sqlite');
	return {
		backend: 'sqlite',
		storeUrl: `sqlite://${path}`,
		namespace: 'memory',
		config: {},
		/* eslint-disable @typescript-eslint/require-await -- a failing stat or removal must reject: callers `.catch` the promise */
		sizeBytes: async () => sqliteFileBytes(path),
		dispose: async () => rmSync(directory, { recursive: true, force: true })
		/* eslint-enable @typescript-eslint/require-await */
	};
}

/** The database file and its write-ahead log. */
export function sqliteFileBytes(path: string): number {
	const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);
	return size(path) + size(`${path}-wal`);
}

async function redisStore(url: string): Promise<PreparedStore> {
	// Loaded here, so that the memory section's process, which only opens SQLite, does not hold a Redis client's modules.
	const { createClient } = await import('@keyv/redis');
	const client = createClient({ url, socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: false } });
	client.on('error', () => undefined);
	try {
		await client.connect();
		await client.ping();
	} catch (error) {
		// A client whose connection failed is already closed, and says so when closed again.
		if (client.isOpen) client.destroy();
		return { skipped: `Redis at ${redact(url)} cannot be reached (${describe(error)}); set MEMORY_BENCH_REDIS_URL` };
	}
	const namespace = uniqueNamespace();
	return {
		store: {
			backend: 'redis',
			storeUrl: url,
			namespace,
			config: {},
			async sizeBytes() {
				const used = /^used_memory:(\d+)/m.exec(await client.info('memory'));
				return used ? Number(used[1]) : null;
			},
			async dispose() {
				try {
					// @keyv/redis writes `<namespace>::<namespace>:<key>`: both start with `<namespace>:`.
					for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 1_000 }))
						if (keys.length) await client.unlink(keys);
				} finally {
					await client.quit();
				}
			}
		}
	};
}

interface PgPool {
	query<Row>(text: string, values?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
	on(event: 'error', listener: (error: Error) => void): void;
	end(): Promise<void>;
}

async function postgresStore(url: string): Promise<PreparedStore> {
	// pg ships no types here (no @types/pg); the bench needs three calls of it.
	// eslint-disable-next-line @typescript-eslint/no-var-requires -- untyped module: an import would need its types
	const { Pool } = require('pg') as { Pool: new (options: Record<string, unknown>) => PgPool };
	const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
	pool.on('error', () => undefined);
	try {
		await pool.query('SELECT 1');
	} catch (error) {
		await pool.end().catch(() => undefined);
		return { skipped: `PostgreSQL at ${redact(url)} cannot be reached (${describe(error)}); set MEMORY_BENCH_POSTGRES_URL` };
	}
	const namespace = uniqueNamespace();
	return {
		store: {
			backend: 'postgres',
			storeUrl: url,
			namespace,
			config: {},
			async sizeBytes() {
				const { rows } = await pool.query<{ bytes: string }>(
					'SELECT (COALESCE(pg_total_relation_size(to_regclass($1)), 0) + ' +
						'COALESCE(pg_total_relation_size(to_regclass($2)), 0))::text AS bytes',
					[POSTGRES_TABLE, POSTGRES_SETS]
				);
				return Number(rows[0]!.bytes);
			},
			async dispose() {
				try {
					for (const table of [POSTGRES_TABLE, POSTGRES_SETS]) {
						const exists = await pool.query<{ table: string | null }>(`SELECT to_regclass($1)::text AS table`, [table]);
						if (!exists.rows[0]?.table) continue;
						await pool.query(`DELETE FROM ${table} WHERE key LIKE $1 ESCAPE '\\'`, [`${likeEscape(namespace)}:%`]);
					}
				} finally {
					await pool.end();
				}
			}
		}
	};
}

function describe(error: unknown): string {
	const message = error instanceof Error ? error.message || error.name : String(error);
	return message.split('\n')[0]!.slice(0, 200);
}
