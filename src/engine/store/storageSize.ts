import { statSync } from 'node:fs';
import { storeError } from '../errors';
import { sqlitePath } from './backends';
import type { MemoryStore } from './MemoryStore';

/** What the backend takes on disk: its parts in bytes, their total, and what they are. */
export interface StorageSize {
	/** Bytes, every part together. */
	total: number;
	/** Bytes of each part, by name (the SQLite file, its write-ahead log; the PostgreSQL table and its sets' table). */
	parts: Record<string, number>;
	/** What the figures count, in words. */
	note: string;
}

/**
 * What the backend takes: the SQLite file (its sets' table in it) and its write-ahead log, or the PostgreSQL table and its
 * sets' table (every namespace in them); null where it is not cheap to tell (Redis, a Keyv the host passed).
 */
export async function storageSize(store: MemoryStore, storeUrl: string): Promise<StorageSize | null> {
	if (store.kind === 'sqlite') {
		const path = sqlitePath(storeUrl);
		if (path === ':memory:') return null;
		const parts = { file: sizeOf(path), wal: sizeOf(`${path}-wal`) };
		return { total: parts.file + parts.wal, parts, note: `${path} and its write-ahead log` };
	}
	if (store.kind !== 'postgres') return null;
	const adapter = store.keyv.store as {
		query?: (sql: string, values?: unknown[]) => Promise<{ bytes: string }[]>;
		opts?: { schema?: string; table?: string };
	};
	if (!adapter.query) return null;
	const table = `${adapter.opts?.schema ?? 'public'}.${adapter.opts?.table ?? 'memory'}`;
	// The sets' table beside it (PostgresSets) is created at the first set written: absent, it counts 0.
	const sets = `${table}_sets`;
	try {
		const [row] = await adapter.query(
			'SELECT pg_total_relation_size($1::regclass) AS bytes, COALESCE(pg_total_relation_size(to_regclass($2)), 0) AS sets',
			[table, sets]
		);
		const parts = { table: Number(row?.bytes ?? 0), sets: Number((row as { sets?: string } | undefined)?.sets ?? 0) };
		return {
			total: parts.table + parts.sets,
			parts,
			note: `tables ${table} and ${sets}, every namespace in them, indexes included`
		};
	} catch (error) {
		throw storeError('size of the table', error);
	}
}

function sizeOf(path: string): number {
	try {
		return statSync(path).size;
	} catch {
		return 0;
	}
}
