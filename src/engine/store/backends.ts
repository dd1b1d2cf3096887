import type { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MemoryError } from '../errors';
import type { StorageKind } from '../schemas';
import { SqliteAdapter, type SqliteSynchronous } from './SqliteAdapter';

/** The library that opens a `sqlite://` store (`MEMORY_SQLITE_DRIVER`). */
export type SqliteDriver = 'better-sqlite3' | '@keyv/sqlite';

/** How {@link openAdapter} opens an SQLite file. */
export interface SqliteOptions {
	synchronous?: SqliteSynchronous;
	driver?: SqliteDriver;
}

/** Where the SQLite file of a `sqlite://` URL lives, resolved against the working directory. */
export function sqlitePath(url: string): string {
	return url.replace(/^sqlite:\/\//, '');
}

/** The backend a store URL names. */
export function storageKind(url: string): StorageKind {
	if (url.startsWith('sqlite:')) return 'sqlite';
	return url.startsWith('redis') ? 'redis' : 'postgres';
}

/** Hides a password in a URL before it reaches a log line. */
export function redact(url: string): string {
	return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');
}

// @keyv/postgres shares one pool per URL across the process and ends it on any disconnect,
// so the pool is only ended when the last store on that URL closes.
const postgresUsers = new Map<string, number>();

/**
 * The Keyv adapter of a store URL: our SQLite store (or @keyv/sqlite), @keyv/redis or @keyv/postgres, each with a
 * compare-and-set (compareAndSet.ts). The last three are optional peer dependencies, loaded only when named.
 */
export async function openAdapter(url: string, sqlite: SqliteOptions = {}): Promise<unknown> {
	const scheme = url.slice(0, url.indexOf(':'));
	switch (scheme) {
		case 'sqlite': {
			const path = sqlitePath(url);
			if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
			if (sqlite.driver !== '@keyv/sqlite') return new SqliteAdapter(path, { synchronous: sqlite.synchronous });
			const { KeyvSqliteAdapter } = await optionalPackage(
				'@keyv/sqlite',
				'MEMORY_SQLITE_DRIVER=@keyv/sqlite',
				() => import('./KeyvSqliteAdapter')
			);
			return KeyvSqliteAdapter.open(path, { synchronous: sqlite.synchronous });
		}
		case 'redis':
		case 'rediss': {
			const { RedisAdapter } = await optionalPackage('@keyv/redis', `A ${scheme}:// store`, () => import('./RedisAdapter'));
			return new RedisAdapter(
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
			const { PostgresAdapter } = await optionalPackage('@keyv/postgres', `A ${scheme}:// store`, () => import('./PostgresAdapter'));
			postgresUsers.set(url, (postgresUsers.get(url) ?? 0) + 1);
			return new PostgresAdapter({
				uri: url,
				table: 'memory',
				keySize: 1024,
				connectionTimeoutMillis: 2000,
				log: listenForPoolErrors
			} as never);
		}
		default:
			throw new MemoryError('INVALID_CONFIG', `Unsupported MEMORY_STORE_URL scheme "${scheme}": use sqlite://, redis:// or postgres://.`);
	}
}

/**
 * Loads the module that uses an optional peer dependency, or stops start-up naming the package to install: a bot
 * installs only the backend it uses.
 */
async function optionalPackage<T>(name: string, neededBy: string, load: () => Promise<T>): Promise<T> {
	try {
		return await load();
	} catch (error) {
		const { code, message } = error as NodeJS.ErrnoException;
		const missing = (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && message.includes(`'${name}'`);
		if (!missing) throw error;
		throw new MemoryError('INVALID_CONFIG', `${neededBy} needs the package ${name}, which is not installed: run \`npm install ${name}\`.`, {
			cause: error
		});
	}
}

/** Whether closing a store on `url` may end its connection: false while another store of this process shares the PostgreSQL pool. */
export function releaseConnection(url: string): boolean {
	if (!/^postgres(ql)?:/.test(url)) return true;
	const users = (postgresUsers.get(url) ?? 1) - 1;
	if (users > 0) {
		postgresUsers.set(url, users);
		return false;
	}
	postgresUsers.delete(url);
	return true;
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
