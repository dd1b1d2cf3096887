import { LRUCache } from 'lru-cache';
import type { MemoryStore } from '../store/MemoryStore';
import { Records } from './Records';

/** What the registries list: directory owners, archives' scopes, authors with an author index, channels with a forgotten list. */
export type RegistryKind = 'servers' | 'users' | 'channels' | 'archives' | 'authors' | 'forgotten' | 'purges';

export const REGISTRY_KINDS: readonly RegistryKind[] = ['servers', 'users', 'channels', 'archives', 'authors', 'forgotten', 'purges'];

/** How long an id this process registered is taken as still registered before it is added again. */
export const REGISTRY_RECHECK_MS = 6 * 3_600_000;

/** Ids per slice of a walk: a page of the set, read from its index. */
export const REGISTRY_SLICE = 1000;

/** Buckets per kind of the layout before sets (`registry:<kind>:<0-63>`, id → 1), whose ids {@link Registry.adoptBuckets} moves. */
export const OLD_REGISTRY_BUCKETS = 64;

/**
 * The ids the sweep walks instead of scanning the store: one set per kind (`registry:<kind>`, store/sets.ts). An id is added
 * when it first appears, blind (no read, no compare-and-set, so shard processes adding at once never conflict); after that
 * an in-memory known-set answers, so steady traffic adds nothing (an id is added again every {@link REGISTRY_RECHECK_MS}).
 * A walk reads a kind in slices of {@link REGISTRY_SLICE} ids, each from the set's index, so it costs what the set holds.
 */
export class Registry {
	private readonly known = new LRUCache<string, true>({ max: 50_000, ttl: REGISTRY_RECHECK_MS });

	public constructor(private readonly store: MemoryStore) {}

	/** Makes sure `id` is listed (call it after writing what the id names). */
	public async note(kind: RegistryKind, id: string): Promise<void> {
		const knownKey = `${kind}:${id}`;
		if (this.known.has(knownKey)) return;
		// Known at once, so the turns that follow do not add it again meanwhile.
		this.known.set(knownKey, true);
		try {
			await this.store.addToSets([{ key: Records.registry(kind), members: [id] }]);
		} catch (error) {
			this.known.delete(knownKey);
			throw error;
		}
	}

	/** Resolves once the additions a host's Keyv reads back (and the indexes') are confirmed (before the store closes). */
	public async settled(): Promise<void> {
		await this.store.readBack.close();
	}

	/** Removes ids whose data is gone. */
	public async remove(kind: RegistryKind, ids: readonly string[]): Promise<void> {
		await this.removeMany(new Map([[kind, ids]]));
	}

	/** {@link remove} of several kinds at once. */
	public async removeMany(byKind: ReadonlyMap<RegistryKind, readonly string[]>): Promise<void> {
		for (const [kind, ids] of byKind) for (const id of ids) this.known.delete(`${kind}:${id}`);
		await this.store.removeFromSets([...byKind].map(([kind, ids]) => ({ key: Records.registry(kind), members: ids })));
	}

	/** Up to `limit` ids of `kind` after `after` (from the first when null), in the set's order. */
	public page(kind: RegistryKind, after: string | null, limit = REGISTRY_SLICE): Promise<string[]> {
		return this.store.setMembersPage(Records.registry(kind), after, limit);
	}

	/**
	 * Every id of `kind`, a slice at a time, the event loop let go between slices. The caller may remove ids of a slice
	 * before asking for the next: the next starts after the slice's last id.
	 */
	public async *slices(kind: RegistryKind, size = REGISTRY_SLICE): AsyncGenerator<string[]> {
		let after: string | null = null;
		for (;;) {
			const slice = await this.page(kind, after, size);
			if (slice.length > 0) yield slice;
			if (slice.length < size) return;
			after = slice[slice.length - 1]!;
			await new Promise((resolve) => setImmediate(resolve));
		}
	}

	/** The ids of `kind` that start with `prefix` (a server's channels, its scopes), read from where they start in the set's order. */
	public async withPrefix(kind: RegistryKind, prefix: string): Promise<string[]> {
		const found: string[] = [];
		let after = prefix;
		for (;;) {
			const slice = await this.page(kind, after);
			const matching = slice.filter((id) => id.startsWith(prefix));
			found.push(...matching);
			if (slice.length < REGISTRY_SLICE || matching.length < slice.length) return found;
			after = slice[slice.length - 1]!;
		}
	}

	/** Every id of `kind`, read a slice at a time: for the small registries (purges pending) and tools. */
	public async every(kind: RegistryKind): Promise<string[]> {
		const ids: string[] = [];
		for await (const slice of this.slices(kind)) ids.push(...slice);
		return ids;
	}

	/**
	 * Moves the ids of the buckets of the layout before sets (`registry:<kind>:<0-63>`) into the sets, then deletes each
	 * bucket, unless another process (of the version before) wrote it meanwhile: it is moved at the next call. One read of
	 * every bucket, at open and at each sweep; resolves with how many ids were moved.
	 */
	public async adoptBuckets(): Promise<number> {
		const keys = REGISTRY_KINDS.flatMap((kind) =>
			Array.from({ length: OLD_REGISTRY_BUCKETS }, (_, bucket) => Records.registryBucket(kind, bucket))
		);
		const read = await this.store.getManyChecked<Record<string, 1>>(keys);
		const moved = new Map<string, Set<string>>();
		const changes = keys.flatMap((key, index) => {
			const { value, damaged } = read[index]!;
			if (!value && !damaged) return [];
			const ids = Object.keys(value ?? {});
			moved.set(key, new Set(ids));
			return [{ key: Records.registry(REGISTRY_KINDS[Math.floor(index / OLD_REGISTRY_BUCKETS)]!), members: ids }];
		});
		if (moved.size === 0) return 0;
		await this.store.addToSets(changes);
		// A damaged bucket goes too: the ids it held are registered again when a turn next touches what they name.
		await this.store.updateMany<Record<string, 1>>([...moved.keys()], (key, current) =>
			Object.keys(current ?? {}).every((id) => moved.get(key)!.has(id)) ? 'delete' : null
		);
		return changes.reduce((count, { members }) => count + members.length, 0);
	}
}
