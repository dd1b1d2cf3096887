import type Keyv from 'keyv';
import { storeError } from '../errors';
import type { AtomicAdapter, ConditionalWrite, RowChange, StoredRow } from './compareAndSet';
import type { Envelope } from './envelope';

/** How many times a compare-and-set is tried while other processes write the same key. */
export const MAX_UPDATE_ATTEMPTS = 100;

/** What {@link updateRows} works with: the store's adapter and keyv, its timed calls, and its keys as the adapter holds them. */
export interface RowUpdateParts {
	adapter: AtomicAdapter;
	keyv: Keyv;
	call: <T>(operation: string, task: () => Promise<T>) => Promise<T>;
	storeKey: (key: string) => string;
}

/**
 * Compare-and-set of several rows as they are stored (each key once; see `MemoryStore.updateRow`): one read of them all,
 * `decide` for each, one conditional write of those that change (one round trip where the adapter can), and again for the
 * keys another process wrote in between, after a pause that keeps two retrying processes apart.
 */
export async function updateRows<R>(
	io: RowUpdateParts,
	keys: readonly string[],
	decide: (key: string, row: StoredRow | undefined) => RowChange<R>
): Promise<R[]> {
	const { adapter } = io;
	const results = new Map<string, R>();
	let pending = [...keys];
	for (let attempt = 1; pending.length > 0; attempt++) {
		const storeKeys = pending.map((key) => io.storeKey(key));
		const raws = (await io.call(`get (${pending.length} keys)`, () =>
			adapter.getMany ? adapter.getMany(storeKeys) : Promise.all(storeKeys.map((key) => adapter.get(key)))
		)) as (string | undefined | null)[];
		const writes: (ConditionalWrite & { key: string; engineKey: string })[] = [];
		for (const [index, key] of pending.entries()) {
			const raw = raws[index] ?? undefined;
			const stored = raw === undefined ? undefined : await io.keyv.deserializeData<Envelope>(raw);
			// An expired row reads as missing, as keyv reads it.
			const live = stored && !(typeof stored.expires === 'number' && Date.now() > stored.expires) ? stored : undefined;
			const { row, result } = decide(
				key,
				live && { envelope: live.value, expires: typeof live.expires === 'number' ? live.expires : undefined }
			);
			results.set(key, result);
			if (row === null || (row === 'delete' && raw === undefined)) continue;
			const next = row === 'delete' ? undefined : ((await io.keyv.serializeData({ value: row.envelope, expires: row.expires })) as string);
			const ttlMs = row === 'delete' || row.expires === undefined ? undefined : Math.max(1, row.expires - Date.now());
			writes.push({ key: storeKeys[index]!, engineKey: key, expected: raw, next, ttlMs });
		}
		if (writes.length === 0) break;
		const landed = await io.call(`update (${writes.length} keys)`, () =>
			adapter.compareAndSetMany
				? adapter.compareAndSetMany(writes)
				: Promise.all(writes.map(({ key, expected, next, ttlMs }) => adapter.compareAndSet(key, expected, next, ttlMs)))
		);
		pending = writes.filter((_, index) => !landed[index]).map(({ engineKey }) => engineKey);
		if (pending.length === 0) break;
		if (attempt === MAX_UPDATE_ATTEMPTS) {
			throw storeError(
				`update ${pending[0]}`,
				new Error(`another process wrote the key ${MAX_UPDATE_ATTEMPTS} times while this one changed it`)
			);
		}
		// Written meanwhile by another process: read again, after a pause that keeps two retrying processes apart.
		await new Promise((resolve) => setTimeout(resolve, Math.random() * attempt * 5));
	}
	return keys.map((key) => results.get(key)!);
}
