import type { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Keyv from 'keyv';
import { MemoryError, storeError } from '../errors';
import { StoreHealth } from './StoreHealth';
import { SqliteAdapter, type SqliteSynchronous } from './SqliteAdapter';
import { KeyedLock } from './KeyedLock';
import { ReadBack } from './ReadBack';
import { readStoredValue, unreadableValue } from './storedValues';
import type { StorageKind } from '../schemas/types';

/** How long a call to a server store may take before it fails as unavailable. */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;

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
	/** How long a call to a Redis, PostgreSQL or custom store may take before it fails as `STORE_UNAVAILABLE`. @default 2000 */
	timeoutMs?: number;
	/** @default 'normal' */
	sqliteSynchronous?: SqliteSynchronous;
}

/** Where the default SQLite file lives, resolved against the working directory. */
export function sqlitePath(url: string): string {
	return url.replace(/^sqlite:\/\//, '');
}

// @keyv/postgres shares one pool per URL across the process and ends it on any disconnect,
// so the pool is only ended when the last store on that URL closes.
const postgresUsers = new Map<string, number>();

async function adapterFor(url: string, sqliteSynchronous: SqliteSynchronous = 'normal'): Promise<unknown> {
	const scheme = url.slice(0, url.indexOf(':'));
	switch (scheme) {
		case 'sqlite': {
			const path = sqlitePath(url);
			if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
			return new SqliteAdapter(path, { synchronous: sqliteSynchronous });
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
			return new KeyvPostgres({ uri: url, table: 'memory', keySize: 1024, connectionTimeoutMillis: 2000, log: listenForPoolErrors } as never);
		}
		default:
			throw new MemoryError('INVALID_CONFIG', `Unsupported MEMORY_STORE_URL scheme "${scheme}": use sqlite://, redis:// or postgres://.`);
	}
}

/**
 * pg's Pool emits `error` when an idle connection dies (the server stopped or restarted), and an
 * `error` event nobody listens to crashes the process. @keyv/postgres keeps its pool to itself, so the
 * listener is added through the pool's `log` option, which pg calls on the pool before it opens any
 * connection. The failure itself reaches the next query.
 */
function listenForPoolErrors(this: EventEmitter): void {
	if (this.listenerCount('error') === 0) this.on('error', () => undefined);
}

/**
 * The engine's only door to storage: versioned values on keyv, per-key write serialisation,
 * and one error type for every adapter failure.
 */
export class MemoryStore {
	public readonly keyv: Keyv;
	public readonly lock = new KeyedLock();
	/** Changes to keys several shard processes write, read back until they stay. */
	public readonly readBack: ReadBack = new ReadBack(this);
	/** The backend, as `/session status` names it. */
	public readonly kind: StorageKind;
	/** Whether the store answers, told once per outage and once per recovery. */
	public readonly health = new StoreHealth();
	private readonly owned: boolean;
	/** Null on SQLite: a local file answers or fails within its busy timeout. */
	private readonly timeoutMs: number | null;

	private postgresUrl: string | null = null;

	private constructor(keyv: Keyv, owned: boolean, kind: StorageKind, timeoutMs: number) {
		this.keyv = keyv;
		this.owned = owned;
		this.kind = kind;
		this.timeoutMs = kind === 'sqlite' ? null : timeoutMs;
		// Surface adapter failures as rejections instead of silent misses.
		this.keyv.throwOnErrors = true;
		this.keyv.on('error', () => undefined);
	}

	/** Opens the store behind `storeUrl`, or wraps a Keyv the host already has. */
	public static async open(options: StoreOptions): Promise<MemoryStore> {
		const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
		if (options.keyv) return new MemoryStore(options.keyv, false, 'custom', timeoutMs);
		let adapter: unknown;
		try {
			adapter = await adapterFor(options.storeUrl, options.sqliteSynchronous);
		} catch (error) {
			if (error instanceof MemoryError) throw error;
			throw new MemoryError('STORE_UNAVAILABLE', `Cannot open memory store ${redact(options.storeUrl)}: ${(error as Error).message}`, {
				cause: error
			});
		}
		const store = new MemoryStore(
			new Keyv({ store: adapter as never, namespace: options.namespace, serialize: JSON.stringify, deserialize: JSON.parse }),
			true,
			storageKind(options.storeUrl),
			timeoutMs
		);
		if (/^postgres(ql)?:/.test(options.storeUrl)) store.postgresUrl = options.storeUrl;
		// Touch the store once so a wrong URL fails at start-up, not at the first reply.
		try {
			await store.keyv.get('__ping__');
		} catch (error) {
			await store.close().catch(() => undefined);
			throw new MemoryError('STORE_UNAVAILABLE', `Cannot reach memory store ${redact(options.storeUrl)}: ${(error as Error).message}`, {
				cause: error
			});
		}
		return store;
	}

	public async get<T>(key: string): Promise<T | undefined> {
		try {
			return unwrap<T>(key, await this.call(`get ${key}`, () => this.keyv.get<Envelope<T>>(key)));
		} catch (error) {
			throw storeError(`get ${key}`, error);
		}
	}

	public async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
		if (keys.length === 0) return [];
		try {
			// Keyv's own getMany, over a store without one (a Map, many custom stores), reads a key that failed as missing,
			// and capture would then write over what it could not read: those keys are read one by one here, so a failure rejects.
			const read = (this.keyv.store as { getMany?: unknown }).getMany
				? () => this.keyv.get<Envelope<T>>([...keys])
				: () => Promise.all(keys.map((key) => this.keyv.get<Envelope<T>>(key)));
			const values = await this.call(`getMany (${keys.length} keys)`, read);
			return values.map((value, index) => unwrap<T>(keys[index]!, value));
		} catch (error) {
			throw storeError(`getMany (${keys.length} keys)`, error);
		}
	}

	/** Stores `value`; `ttlMs` lets the backend drop it on its own once it can no longer be served. */
	public async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
		try {
			await this.call(`set ${key}`, () => this.keyv.set(key, { v: SCHEMA_VERSION, d: value } satisfies Envelope<T>, ttlMs));
		} catch (error) {
			throw storeError(`set ${key}`, error);
		}
	}

	public async setMany(entries: readonly { key: string; value: unknown; ttlMs?: number }[]): Promise<void> {
		if (entries.length === 0) return;
		try {
			await this.call(`setMany (${entries.length} keys)`, () =>
				this.keyv.setMany(entries.map(({ key, value, ttlMs }) => ({ key, value: { v: SCHEMA_VERSION, d: value }, ttl: ttlMs })))
			);
		} catch (error) {
			throw storeError(`setMany (${entries.length} keys)`, error);
		}
	}

	public async delete(keys: readonly string[]): Promise<void> {
		if (keys.length === 0) return;
		try {
			await this.call(`delete (${keys.length} keys)`, () => this.keyv.delete([...keys]));
		} catch (error) {
			throw storeError(`delete (${keys.length} keys)`, error);
		}
	}

	/**
	 * One adapter call. It fails as `STORE_UNAVAILABLE` after the store's timeout, so that a server
	 * that stopped answering (frozen, or cut off without a reset) never holds a reply; and its outcome
	 * tells the store's health.
	 */
	private async call<T>(operation: string, task: () => Promise<T>): Promise<T> {
		const call = this.health.begin();
		let timer: NodeJS.Timeout | undefined;
		const deadline =
			this.timeoutMs === null
				? []
				: [
						new Promise<never>((_, reject) => {
							timer = setTimeout(
								() =>
									reject(
										new MemoryError('STORE_UNAVAILABLE', `Memory store did not answer ${operation} within ${this.timeoutMs} ms.`)
									),
								this.timeoutMs!
							);
						})
					];
		try {
			const result = await Promise.race([task(), ...deadline]);
			this.health.succeeded(call);
			return result;
		} catch (error) {
			throw this.health.failed(call, storeError(operation, error));
		} finally {
			clearTimeout(timer);
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

function unwrap<T>(key: string, value: Envelope<T> | undefined | null): T | undefined {
	if (value === undefined || value === null) return undefined;
	// A value from another schema version, or one that does not parse, is not trusted; the write path rebuilds it.
	if (typeof value !== 'object' || value.v !== SCHEMA_VERSION) return unreadableValue(key) as T | undefined;
	return readStoredValue(key, value.d) as T | undefined;
}

/** Hides a password in a URL before it reaches a log line. */
export function redact(url: string): string {
	return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');
}
