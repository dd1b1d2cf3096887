import { LRUCache } from 'lru-cache';
import { Keys } from '../store/keys';
import type { MemoryStore } from '../store/MemoryStore';
import { fnv1a } from '../format/fnv1a';

/** What the registries list: directory owners, archives' scopes, authors with an author index, channels with a forgotten list. */
export type RegistryKind = 'servers' | 'users' | 'channels' | 'archives' | 'authors' | 'forgotten' | 'purges';

/** Buckets per kind: adding an id rewrites one bucket, 1/64 of the kind's ids. */
export const REGISTRY_BUCKETS = 64;

/** How long an id this process registered is taken as still registered before it is checked again. */
export const REGISTRY_RECHECK_MS = 6 * 3_600_000;

/** `registry:<kind>:<bucket>`: id → 1. */
type Bucket = Record<string, 1>;

/**
 * The ids the sweep walks instead of scanning the store. An id is written when it first appears;
 * after that an in-memory known-set answers, so steady traffic adds no reads or writes (an id is
 * checked again, with one read, every {@link REGISTRY_RECHECK_MS}). Shard processes may add to the
 * same bucket at once, and the store has no transactions: a process that read the bucket before our
 * write may write it back without our id. So each add is read back (the store's {@link ReadBack}) and
 * written again until its id stays.
 */
export class Registry {
	private readonly known = new LRUCache<string, true>({ max: 50_000, ttl: REGISTRY_RECHECK_MS });

	public constructor(private readonly store: MemoryStore) {}

	/** Makes sure `id` is listed (call it after writing what the id names). */
	public async note(kind: RegistryKind, id: string): Promise<void> {
		const knownKey = `${kind}:${id}`;
		if (this.known.has(knownKey)) return;
		// Known at once, so the turns that follow do not write it again while it is confirmed.
		this.known.set(knownKey, true);
		const key = bucketKey(kind, id);
		try {
			if ((await this.store.get<Bucket>(key))?.[id]) return;
			await this.add(key, id);
		} catch (error) {
			this.known.delete(knownKey);
			throw error;
		}
		// Removed since by this process's sweep: its data is gone, nothing to put back.
		const holds = (bucket: Bucket | undefined) => Boolean(bucket?.[id]) || !this.known.has(knownKey);
		void this.store.readBack
			.confirm(key, holds, () => this.add(key, id))
			.then((confirmed) => {
				// Not confirmed: the next sighting tries again.
				if (!confirmed) this.known.delete(knownKey);
			});
	}

	/** Reads back now every change to a shared key (these adds, and the indexes'), and resolves once done (before the store closes). */
	public async settled(): Promise<void> {
		await this.store.readBack.close();
	}

	/** Removes ids whose data is gone; a bucket left empty is deleted. */
	public async remove(kind: RegistryKind, ids: readonly string[]): Promise<void> {
		await this.removeMany(new Map([[kind, ids]]));
	}

	/** {@link remove} of several kinds, every bucket they touch rewritten together. */
	public async removeMany(byKind: ReadonlyMap<RegistryKind, readonly string[]>): Promise<void> {
		const byBucket = new Map<string, string[]>();
		for (const [kind, ids] of byKind) {
			for (const id of ids) {
				this.known.delete(`${kind}:${id}`);
				const key = bucketKey(kind, id);
				byBucket.set(key, [...(byBucket.get(key) ?? []), id]);
			}
		}
		await this.store.updateMany<Bucket>([...byBucket.keys()], (key, current) => {
			const gone = byBucket.get(key)!;
			if (!current || !gone.some((id) => id in current)) return null;
			const next = { ...current };
			for (const id of gone) delete next[id];
			return Object.keys(next).length === 0 ? 'delete' : { value: next };
		});
	}

	/** Every id of `kind`, in no particular order. */
	public async list(kind: RegistryKind): Promise<string[]> {
		const buckets = await this.store.getMany<Bucket>(Array.from({ length: REGISTRY_BUCKETS }, (_, bucket) => Keys.registry(kind, bucket)));
		return buckets.flatMap((bucket) => Object.keys(bucket ?? {}));
	}

	private async add(key: string, id: string): Promise<void> {
		await this.store.update<Bucket>(key, (current) => (current?.[id] ? null : { value: { ...current, [id]: 1 } }));
	}
}

function bucketKey(kind: RegistryKind, id: string): string {
	return Keys.registry(kind, (fnv1a(id) >>> 0) % REGISTRY_BUCKETS);
}
