import Keyv from 'keyv';
import { MemoryError, storeError } from '../errors';
import type { StorageKind } from '../schemas';
import { openAdapter, redact, type SqliteDriver, storageKind } from './backends';
import { readRow } from './DamagedValues';
import type { Sealer } from './Sealer';
import { SocketErrors } from './SocketErrors';
import type { StoreHealth } from './StoreHealth';
import type { SqliteSynchronous } from './SqliteAdapter';

/** How long a call to a server store may take before it fails as unavailable. */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;

/** Options the store understands beyond the URL. */
export interface StoreOptions {
	storeUrl: string;
	namespace: string;
	keyv?: Keyv;
	/** How long a call to a Redis, PostgreSQL or custom store may take before it fails as `STORE_UNAVAILABLE`. @default 2000 */
	timeoutMs?: number;
	/** @default 'normal' */
	sqliteSynchronous?: SqliteSynchronous;
	/** @default 'better-sqlite3' */
	sqliteDriver?: SqliteDriver;
	/** Seals every value before it reaches keyv (`MEMORY_ENCRYPTION_KEY`); null or absent: values are stored as they are. */
	sealer?: Sealer | null;
	/** Keep a store that does not answer at start-up, memory off until it does (`MEMORY_START_WITHOUT_STORE`). @default false */
	startWithoutStore?: boolean;
}

/** What a store is made of once opened. */
export interface StoreParts {
	keyv: Keyv;
	namespace: string;
	/** The URL the store was opened on; null for a Keyv the host passed, which the engine never closes. */
	ownedUrl: string | null;
	kind: StorageKind;
	timeoutMs: number;
	sealer: Sealer | null;
}

/**
 * Opens the store behind `storeUrl`, or wraps a Keyv the host already has, as `make` builds it from its parts. A store
 * opened from its URL answers one call first, so that a wrong URL or a server away stops start-up with
 * `STORE_UNAVAILABLE` (naming the URL, its password hidden, and why) instead of failing the first reply.
 */
export async function openStore<S extends { readonly keyv: Keyv; readonly health: StoreHealth; close(): Promise<void> }>(
	options: StoreOptions,
	make: (parts: StoreParts) => S
): Promise<S> {
	const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
	const sealer = options.sealer ?? null;
	const { namespace } = options;
	if (options.keyv) return make({ keyv: options.keyv, namespace, ownedUrl: null, kind: 'custom', timeoutMs, sealer });
	let adapter: unknown;
	try {
		adapter = await openAdapter(options.storeUrl, { synchronous: options.sqliteSynchronous, driver: options.sqliteDriver });
	} catch (error) {
		if (error instanceof MemoryError) throw error;
		throw new MemoryError('STORE_UNAVAILABLE', `Cannot open memory store ${redact(options.storeUrl)}: ${(error as Error).message}`, {
			cause: error
		});
	}
	// A row that is not JSON reads as unreadable, not as an error: one damaged row never fails every call that reads it.
	const keyv = new Keyv({ store: adapter as never, namespace, serialize: JSON.stringify, deserialize: readRow });
	const store = make({ keyv, namespace, ownedUrl: options.storeUrl, kind: storageKind(options.storeUrl), timeoutMs, sealer });
	// Touch the store once so a wrong URL fails at start-up, not at the first reply.
	const socketErrors = new SocketErrors(adapter);
	try {
		await store.keyv.get('__ping__');
	} catch (error) {
		const unreached = new MemoryError(
			'STORE_UNAVAILABLE',
			`Cannot reach memory store ${redact(options.storeUrl)}: ${whyUnreached(error, socketErrors)}`,
			{ cause: error }
		);
		// The adapter reconnects on its own, as after an outage at run time: the store is kept for when it answers.
		if (options.startWithoutStore) {
			// Memory off until it answers: the outage starts now.
			store.health.gate.close(unreached);
			store.health.failed(store.health.begin(), unreached);
			return store;
		}
		await store.close().catch(() => undefined);
		throw unreached;
	} finally {
		socketErrors.stop();
	}
	return store;
}

/**
 * Why a store did not answer at start-up, as an operator acts on it: a PostgreSQL database that does not exist (SQLSTATE
 * 3D000) named as such, a connection that failed asked about the server, any other refusal (a wrong password) as it came.
 */
function whyUnreached(error: unknown, socketErrors: SocketErrors): string {
	for (let cause = error; cause instanceof Error; cause = cause.cause) {
		if ((cause as { code?: unknown }).code === '3D000')
			return `${cause.message} on that server: create it (\`createdb <name>\`), or name an existing database in the URL.`;
	}
	const reason = socketErrors.first?.message ?? (error as Error).message;
	const connectionFailed = socketErrors.first !== undefined || storeError('ping', error).code === 'STORE_UNAVAILABLE';
	return connectionFailed ? `${reason}. Is the server running there?` : `${reason}.`;
}
