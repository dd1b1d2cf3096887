import { statSync } from 'node:fs';
import type { MemoryConfig } from '../config';
import { storeError } from '../errors';
import { Keys, parseScopeKey } from '../store/keys';
import { type MemoryStore, sqlitePath } from '../store/MemoryStore';
import type { StorageKind, StoredMessage } from '../schemas/types';

/** The kinds of key the engine writes (see {@link Keys}), as the operator CLI counts them. */
export const KEY_KINDS = {
	shortTermUser: 'short-term entries, user scope',
	shortTermServer: 'short-term entries, server scope',
	archiveHeads: 'archives (heads)',
	archiveChunks: 'archive chunks',
	archiveMarkers: 'archived-message markers',
	archiveTombstones: 'archive tombstone lists',
	userIndexes: 'user indexes',
	serverIndexes: 'server indexes',
	channelIndexes: 'channel indexes',
	authorIndexes: 'author indexes',
	profiles: 'profiles',
	topics: 'topic-note sets',
	userSettings: 'user settings',
	serverSettings: 'server settings',
	registryBuckets: 'registry buckets',
	sweepLease: 'sweep lease',
	other: 'other keys'
} as const;

export type KeyKind = keyof typeof KEY_KINDS;

/** What the store holds, for operators (`sapphire-memory stats`). */
export interface StoreInventory {
	storage: StorageKind;
	namespace: string;
	/** Keys per kind. */
	keys: Record<KeyKind, number>;
	totalKeys: number;
	/** Characters of the keys and of their values as JSON: what the data weighs, whatever the backend adds. */
	dataBytes: number;
	/**
	 * What the backend takes: the SQLite file and its write-ahead log, or the PostgreSQL table (every
	 * namespace in it); null where it is not cheap to tell (Redis, a Keyv the host passed).
	 */
	storageBytes: { total: number; parts: Record<string, number>; note: string } | null;
	/** Messages the archive chunks hold, and the times of the oldest and newest (milliseconds since the epoch). */
	archive: { scopes: number; messages: number; oldest: number | null; newest: number | null };
	/** When a sweep last ran, by the engine's clock, as its lease tells; null when none ran. */
	lastSweepAt: number | null;
}

/** Which kind of key `key` (without the namespace) is. */
export function keyKind(key: string): KeyKind {
	if (key.startsWith('archive:')) {
		// Ids never hold ":", so the scope key inside cannot hold these parts.
		if (key.includes(':seen:')) return 'archiveMarkers';
		if (/:chunk:\d+$/.test(key)) return 'archiveChunks';
		if (key.endsWith(':head')) return 'archiveHeads';
		if (key.endsWith(':tombstones')) return 'archiveTombstones';
		return 'other';
	}
	const scope = parseScopeKey(key);
	if (scope) return scope.scope === 'user' ? 'shortTermUser' : 'shortTermServer';
	const prefixes: [string, KeyKind][] = [
		['index:user:', 'userIndexes'],
		['index:server:', 'serverIndexes'],
		['index:channel:', 'channelIndexes'],
		['index:author:', 'authorIndexes'],
		['ltm:profile:', 'profiles'],
		['ltm:topics:', 'topics'],
		['settings:user:', 'userSettings'],
		['settings:server:', 'serverSettings'],
		['registry:', 'registryBuckets']
	];
	for (const [prefix, kind] of prefixes) if (key.startsWith(prefix)) return kind;
	return key === Keys.sweepLease() ? 'sweepLease' : 'other';
}

/**
 * Every key of the namespace with its stored value (`{ v, d }`), through Keyv's iterator. It reads the
 * whole namespace: a tool for operators, never the reply path.
 */
export async function* scanStore(store: MemoryStore, namespace: string): AsyncGenerator<[key: string, value: unknown]> {
	const iterate = store.keyv.iterator;
	if (!iterate) throw storeError('scan', new Error('this store cannot list its keys (its Keyv adapter has no iterator)'));
	try {
		for await (const [key, value] of iterate.call(store.keyv, namespace)) yield [String(key), value];
	} catch (error) {
		throw storeError('scan', error);
	}
}

/** Counts the store's keys by kind, its size, and the archive's span. */
export async function takeInventory(store: MemoryStore, config: MemoryConfig): Promise<StoreInventory> {
	const keys = Object.fromEntries(Object.keys(KEY_KINDS).map((kind) => [kind, 0])) as Record<KeyKind, number>;
	const archive = { scopes: 0, messages: 0, oldest: null as number | null, newest: null as number | null };
	let totalKeys = 0;
	let dataBytes = 0;
	let lastSweepAt: number | null = null;
	for await (const [key, value] of scanStore(store, config.storeNamespace)) {
		const kind = keyKind(key);
		keys[kind]++;
		totalKeys++;
		dataBytes += Buffer.byteLength(key) + Buffer.byteLength(JSON.stringify(value) ?? '');
		const data = (value as { d?: unknown } | null)?.d;
		if (kind === 'archiveHeads') archive.scopes++;
		if (kind === 'archiveChunks' && Array.isArray(data)) {
			for (const message of data as StoredMessage[]) {
				archive.messages++;
				if (typeof message?.ts !== 'number') continue;
				archive.oldest = Math.min(archive.oldest ?? message.ts, message.ts);
				archive.newest = Math.max(archive.newest ?? message.ts, message.ts);
			}
		}
		if (kind === 'sweepLease' && typeof (data as { at?: unknown })?.at === 'number') lastSweepAt = (data as { at: number }).at;
	}
	return {
		storage: store.kind,
		namespace: config.storeNamespace,
		keys,
		totalKeys,
		dataBytes,
		storageBytes: await storageBytes(store, config),
		archive,
		lastSweepAt
	};
}

async function storageBytes(store: MemoryStore, config: MemoryConfig): Promise<StoreInventory['storageBytes']> {
	if (store.kind === 'sqlite') {
		const path = sqlitePath(config.storeUrl);
		if (path === ':memory:') return null;
		const parts = { file: sizeOf(path), wal: sizeOf(`${path}-wal`) };
		return { total: parts.file + parts.wal, parts, note: `${path} and its write-ahead log` };
	}
	if (store.kind === 'postgres') {
		const adapter = store.keyv.store as {
			query?: (sql: string, values?: unknown[]) => Promise<{ bytes: string }[]>;
			opts?: { schema?: string; table?: string };
		};
		if (!adapter.query) return null;
		const table = `${adapter.opts?.schema ?? 'public'}.${adapter.opts?.table ?? 'memory'}`;
		try {
			const [row] = await adapter.query('SELECT pg_total_relation_size($1::regclass) AS bytes', [table]);
			const total = Number(row?.bytes ?? 0);
			return { total, parts: { table: total }, note: `table ${table}, every namespace in it, indexes included` };
		} catch (error) {
			throw storeError('size of the table', error);
		}
	}
	return null;
}

function sizeOf(path: string): number {
	try {
		return statSync(path).size;
	} catch {
		return 0;
	}
}
