import type { MemoryConfig } from '../config';
import type { StorageKind, StoredMessage } from '../schemas';
import { KEY_KINDS, type KeyKind, keyKind } from '../store/keyKinds';

export { KEY_KINDS, type KeyKind, keyKind };
import type { RecordStore, StorageSize } from './RecordStore';

/** What the store holds, for operators (`sapphire-memory stats`). */
export interface StoreInventory {
	/** Where the store lives. */
	storage: StorageKind;
	/** The keyv namespace the keys are in (`MEMORY_STORE_NAMESPACE`). */
	namespace: string;
	/** Keys per kind. */
	keys: Record<KeyKind, number>;
	/** Keys, every kind together. */
	totalKeys: number;
	/** Characters of the keys and of their values as JSON (unsealed): what the data weighs, whatever the backend adds. */
	dataBytes: number;
	/**
	 * What the backend takes: the SQLite file and its write-ahead log, or the PostgreSQL table (every
	 * namespace in it); null where it is not cheap to tell (Redis, a Keyv the host passed).
	 */
	storageBytes: StorageSize | null;
	/** Messages the archive chunks hold, and the times of the oldest and newest (milliseconds since the epoch). */
	archive: { scopes: number; messages: number; oldest: number | null; newest: number | null };
	/** When a sweep last ran, by the engine's clock, as its lease tells; null when none ran. */
	lastSweepAt: number | null;
}

/** Counts the store's keys by kind, its size, and the archive's span. It reads the whole namespace: never on the reply path. */
export async function takeInventory(store: RecordStore, config: MemoryConfig): Promise<StoreInventory> {
	const keys = Object.fromEntries(Object.keys(KEY_KINDS).map((kind) => [kind, 0])) as Record<KeyKind, number>;
	const archive = { scopes: 0, messages: 0, oldest: null as number | null, newest: null as number | null };
	let totalKeys = 0;
	let dataBytes = 0;
	let lastSweepAt: number | null = null;
	// Read as stored (unsealed), without the engine's checks: an operator counts what is there, damaged or not.
	for await (const [key, data] of store.scan()) {
		const kind = keyKind(key);
		keys[kind]++;
		totalKeys++;
		dataBytes += Buffer.byteLength(key) + jsonBytes(data);
		if (kind === 'archiveHeads') archive.scopes++;
		if (kind === 'archiveChunks' && Array.isArray(data)) {
			for (const message of data as Partial<StoredMessage>[]) {
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
		storageBytes: await store.storageSize(config.storeUrl),
		archive,
		lastSweepAt
	};
}

/** The bytes of `data` as JSON; a value nested too deep for `JSON.stringify` (a damaged row) is measured without recursing. */
function jsonBytes(data: unknown): number {
	try {
		return Buffer.byteLength(JSON.stringify(data) ?? '');
	} catch {
		let bytes = 0;
		const pending: unknown[] = [data];
		while (pending.length > 0) {
			const value = pending.pop();
			if (value === null || typeof value !== 'object') {
				bytes += Buffer.byteLength(JSON.stringify(value) ?? 'null');
				continue;
			}
			// Brackets, and a comma between two items.
			const items = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
			bytes += 2 + Math.max(0, items.length - 1);
			if (!Array.isArray(value)) for (const name of Object.keys(value)) bytes += Buffer.byteLength(JSON.stringify(name)) + 1;
			pending.push(...items);
		}
		return bytes;
	}
}
