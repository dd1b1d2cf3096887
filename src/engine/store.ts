import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Keyv from 'keyv';
import { MemoryError, storeError } from './errors';
import { KeyedLock } from './lock';
import type { StorageKind } from './types';

/** Bumped whenever a stored shape changes; older values are migrated or dropped on read. */
export const SCHEMA_VERSION = 1;

interface Envelope<T> {
	v: number;
	d: T;
}

/** Options the store understands beyond the URL. */
export interface StoreOptions {
	storeUrl: string;
	namespace: string;
	keyv?: Keyv;
}

/** Where the default SQLite file lives, resolved against the working directory. */
export function sqlitePath(url: string): string {
	return url.replace(/^sqlite:\/\//, '');
}

// @keyv/postgres shares one pool per URL across the process and ends it on any disconnect,
// so the pool is only ended when the last store on that URL closes.
const postgresUsers = new Map<string, number>();

async function adapterFor(url: string): Promise<unknown> {
	const scheme = url.slice(0, url.indexOf(':'));
	switch (scheme) {
		case 'sqlite': {
			const path = sqlitePath(url);
			if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
			const { default: KeyvSqlite } = await import('@keyv/sqlite');
			const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, busyTimeout: 5000 });
			// WAL keeps every committed write across a process crash while making commits cheap.
			await adapter.query('PRAGMA journal_mode=WAL');
			await adapter.query('PRAGMA synchronous=NORMAL');
			// Erasure must not leave deleted text readable in the file's free pages.
			await adapter.query('PRAGMA secure_delete=ON');
			return adapter;
		}
		case 'redis':
		case 'rediss': {
			const { default: KeyvRedis } = await import('@keyv/redis');
			return new KeyvRedis(
				{
					url,
					// Fail fast while the server is away instead of queueing replies behind it.
					disableOfflineQueue: true,
					socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5000) }
				},
				{ throwOnConnectError: true, throwOnErrors: true, connectionTimeout: 2000 }
			);
		}
		case 'postgres':
		case 'postgresql': {
			const { default: KeyvPostgres } = await import('@keyv/postgres');
			postgresUsers.set(url, (postgresUsers.get(url) ?? 0) + 1);
			return new KeyvPostgres({ uri: url, table: 'memory', keySize: 1024, connectionTimeoutMillis: 2000 } as never);
		}
		default:
			throw new MemoryError('INVALID_CONFIG', `Unsupported MEMORY_STORE_URL scheme "${scheme}": use sqlite://, redis:// or postgres://.`);
	}
}

/**
 * The engine's only door to storage: versioned values on keyv, per-key write serialisation,
 * and one error type for every adapter failure.
 */
export class MemoryStore {
	public readonly keyv: Keyv;
	public readonly lock = new KeyedLock();
	/** The backend, as `/session status` names it. */
	public readonly kind: StorageKind;
	private readonly owned: boolean;

	private postgresUrl: string | null = null;

	private constructor(keyv: Keyv, owned: boolean, kind: StorageKind) {
		this.keyv = keyv;
		this.owned = owned;
		this.kind = kind;
		// Surface adapter failures as rejections instead of silent misses.
		this.keyv.throwOnErrors = true;
		this.keyv.on('error', () => undefined);
	}

	/** Opens the store behind `storeUrl`, or wraps a Keyv the host already has. */
	public static async open(options: StoreOptions): Promise<MemoryStore> {
		if (options.keyv) return new MemoryStore(options.keyv, false, 'custom');
		let adapter: unknown;
		try {
			adapter = await adapterFor(options.storeUrl);
		} catch (error) {
			if (error instanceof MemoryError) throw error;
			throw new MemoryError('STORE_UNAVAILABLE', `Cannot open memory store ${redact(options.storeUrl)}: ${(error as Error).message}`, { cause: error });
		}
		const store = new MemoryStore(new Keyv({ store: adapter as never, namespace: options.namespace }), true, storageKind(options.storeUrl));
		if (/^postgres(ql)?:/.test(options.storeUrl)) store.postgresUrl = options.storeUrl;
		// Touch the store once so a wrong URL fails at start-up, not at the first reply.
		try {
			await store.keyv.get('__ping__');
		} catch (error) {
			await store.close().catch(() => undefined);
			throw new MemoryError('STORE_UNAVAILABLE', `Cannot reach memory store ${redact(options.storeUrl)}: ${(error as Error).message}`, { cause: error });
		}
		return store;
	}

	public async get<T>(key: string): Promise<T | undefined> {
		try {
			return unwrap<T>(await this.keyv.get<Envelope<T>>(key));
		} catch (error) {
			throw storeError(`get ${key}`, error);
		}
	}

	public async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
		if (keys.length === 0) return [];
		try {
			const values = await this.keyv.get<Envelope<T>>([...keys]);
			return values.map((value) => unwrap<T>(value));
		} catch (error) {
			throw storeError(`getMany (${keys.length} keys)`, error);
		}
	}

	/** Stores `value`; `ttlMs` lets the backend drop it on its own once it can no longer be served. */
	public async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
		try {
			await this.keyv.set(key, { v: SCHEMA_VERSION, d: value } satisfies Envelope<T>, ttlMs);
		} catch (error) {
			throw storeError(`set ${key}`, error);
		}
	}

	public async setMany(entries: readonly { key: string; value: unknown; ttlMs?: number }[]): Promise<void> {
		if (entries.length === 0) return;
		try {
			await this.keyv.setMany(entries.map(({ key, value, ttlMs }) => ({ key, value: { v: SCHEMA_VERSION, d: value }, ttl: ttlMs })));
		} catch (error) {
			throw storeError(`setMany (${entries.length} keys)`, error);
		}
	}

	public async delete(keys: readonly string[]): Promise<void> {
		if (keys.length === 0) return;
		try {
			await this.keyv.delete([...keys]);
		} catch (error) {
			throw storeError(`delete (${keys.length} keys)`, error);
		}
	}

	/**
	 * Read-modify-write of one key, serialised with every other update of that key in this process.
	 * `change` returns the new value, `null` to leave the key as it is, or `'delete'` to remove it.
	 */
	public update<T>(key: string, change: (current: T | undefined) => { value: T; ttlMs?: number } | null | 'delete'): Promise<T | undefined> {
		return this.lock.run(key, async () => {
			const current = await this.get<T>(key);
			const next = change(current);
			if (next === null) return current;
			if (next === 'delete') {
				if (current !== undefined) await this.delete([key]);
				return undefined;
			}
			await this.set(key, next.value, next.ttlMs);
			return next.value;
		});
	}

	public async close(): Promise<void> {
		if (!this.owned) return;
		if (this.postgresUrl) {
			const users = (postgresUsers.get(this.postgresUrl) ?? 1) - 1;
			postgresUsers.set(this.postgresUrl, users);
			if (users > 0) return;
			postgresUsers.delete(this.postgresUrl);
		}
		await this.keyv.disconnect();
	}
}

function storageKind(url: string): StorageKind {
	if (url.startsWith('sqlite:')) return 'sqlite';
	return url.startsWith('redis') ? 'redis' : 'postgres';
}

function unwrap<T>(value: Envelope<T> | undefined | null): T | undefined {
	if (value === undefined || value === null || typeof value !== 'object') return undefined;
	// A value from another schema version is not trusted; the write path rebuilds it.
	if (value.v !== SCHEMA_VERSION) return undefined;
	return value.d;
}

/** Hides a password in a URL before it reaches a log line. */
export function redact(url: string): string {
	return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');
}
