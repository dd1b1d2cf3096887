import { LRUCache } from 'lru-cache';
import type { MemoryStore } from '../store/MemoryStore';
import {
	PER_SERVER_KINDS,
	partitionKey,
	registration,
	type RegistryKind,
	REGISTRY_KINDS,
	SERVER_ID_KINDS,
	SHARD_BUCKETS,
	shardBucket
} from './registryLayout';
import { Records, type SetKey } from './Records';

export { type RegistryKind, REGISTRY_KINDS } from './registryLayout';

/** How long an id this process registered is taken as still registered before it is added again. */
export const REGISTRY_RECHECK_MS = 6 * 3_600_000;

/** Ids per slice of a walk: a page of the set, read from its index. */
export const REGISTRY_SLICE = 1000;

/** Buckets per kind of the layout before sets (`registry:<kind>:<0-63>`, id → 1), whose ids {@link Registry.adoptBuckets} moves. */
export const OLD_REGISTRY_BUCKETS = 64;

/** Servers whose partitions the sweep reads at once when it looks for servers left with none. */
const SERVERS_AT_ONCE = 50;

/** Sets whose first page a walk reads at once: most sets (a bucket's list, a server's partition) hold less than a slice. */
const SETS_AT_ONCE = 64;

/** The 64 shard buckets, in order. */
const BUCKETS = Array.from({ length: SHARD_BUCKETS }, (_, bucket) => bucket);

/** Ids a walk read, and the set it read them from: the one to remove them from once their data is gone. */
export interface RegistrySlice {
	partition: SetKey;
	ids: readonly string[];
}

/**
 * The ids the sweep walks instead of scanning the store, in partitions no two shards write (records/registryLayout.ts): the
 * ids met in a server in that server's set, server ids in their shard bucket's. An id is added when it first appears, blind
 * (no read, no compare-and-set); after that an in-memory known-set answers, so steady traffic adds nothing (an id is added
 * again every {@link REGISTRY_RECHECK_MS}). A walk reads each set in slices of {@link REGISTRY_SLICE} ids, each from the
 * set's index, so it costs what the sets hold. The one set per kind of the layout before partitions (`registry:<kind>`) is
 * walked too, until the sweep has moved its ids (records/moveIntoPartitions.ts).
 */
export class Registry {
	/** By partition key and id: a kind, a server and an id. */
	private readonly known = new LRUCache<string, true>({ max: 50_000, ttl: REGISTRY_RECHECK_MS });

	public constructor(private readonly store: MemoryStore) {}

	/** Makes sure `id` of `kind`, met in `serverId` (`DM` for direct messages), is listed (call it after writing what the id names). */
	public async note(kind: RegistryKind, serverId: string, id: string): Promise<void> {
		const knownKey = `${partitionKey(kind, serverId)}\u0000${id}`;
		if (this.known.has(knownKey)) return;
		// Known at once, so the turns that follow do not add it again meanwhile.
		this.known.set(knownKey, true);
		try {
			await this.store.addToSets(registration(kind, serverId, [id]));
		} catch (error) {
			this.known.delete(knownKey);
			throw error;
		}
	}

	/** Resolves once the additions a host's Keyv reads back (and the indexes') are confirmed (before the store closes). */
	public async settled(): Promise<void> {
		await this.store.readBack.close();
	}

	/** Removes ids of `kind` met in `serverId` whose data is gone, from its partition and from the set before partitions. */
	public async remove(kind: RegistryKind, serverId: string, ids: readonly string[]): Promise<void> {
		await this.removeMany(new Map([[kind, ids]]), serverId);
	}

	/** {@link remove} of several kinds at once. */
	public async removeMany(byKind: ReadonlyMap<RegistryKind, readonly string[]>, serverId: string): Promise<void> {
		const partitions = [...byKind].flatMap(([kind, ids]) => [
			{ partition: partitionKey(kind, serverId), ids },
			{ partition: Records.registry(kind), ids }
		]);
		await this.removeFrom(partitions);
	}

	/**
	 * Deletes every set of `serverId` and takes it off its bucket's list: the server was purged, and its sets would name it.
	 * Ids of it this process knew are forgotten, so that they are added again should the bot come back.
	 */
	public async forgetServer(serverId: string): Promise<void> {
		const partitions = PER_SERVER_KINDS.map((kind) => partitionKey(kind, serverId));
		for (const knownKey of [...this.known.keys()])
			if (partitions.some((partition) => knownKey.startsWith(`${partition}\u0000`))) this.known.delete(knownKey);
		await this.store.deleteSets(partitions);
		await this.store.removeFromSets([{ key: Records.registryServers(shardBucket(serverId)), members: [serverId] }]);
	}

	/** Removes ids from the sets a walk found them in. */
	public async removeFrom(slices: readonly RegistrySlice[]): Promise<void> {
		for (const { partition, ids } of slices) for (const id of ids) this.known.delete(`${partition}\u0000${id}`);
		await this.store.removeFromSets(slices.map(({ partition, ids }) => ({ key: partition, members: ids })));
	}

	/** Up to `limit` ids of the set `partition` after `after` (from the first when null), in the set's order. */
	public page(partition: SetKey, after: string | null, limit = REGISTRY_SLICE): Promise<string[]> {
		return this.store.setMembersPage(partition, after, limit);
	}

	/**
	 * Every id of `kind`, a slice at a time, the event loop let go between slices: the set before partitions, then each
	 * bucket's or each server's. The caller may remove ids of a slice before asking for the next: the next starts after the
	 * slice's last id.
	 */
	public async *slices(kind: RegistryKind, size = REGISTRY_SLICE): AsyncGenerator<RegistrySlice> {
		yield* this.walk(Records.registry(kind), size);
		if (SERVER_ID_KINDS.has(kind)) {
			yield* this.walkEach(
				BUCKETS.map((bucket) => Records.registryOfBucket(kind, bucket)),
				size
			);
			return;
		}
		for await (const { ids: servers } of this.servers())
			yield* this.walkEach(
				servers.map((serverId) => partitionKey(kind, serverId)),
				size
			);
	}

	/** The servers that have partitions, a slice of a shard bucket at a time. */
	public async *servers(): AsyncGenerator<RegistrySlice> {
		yield* this.walkEach(BUCKETS.map((bucket) => Records.registryServers(bucket)));
	}

	/** Every id of one set, a slice at a time, from after `after` (see {@link slices}). */
	public async *walk(partition: SetKey, size = REGISTRY_SLICE, from: string | null = null): AsyncGenerator<RegistrySlice> {
		let after = from;
		for (;;) {
			const ids = await this.page(partition, after, size);
			if (ids.length > 0) yield { partition, ids };
			if (ids.length < size) return;
			after = ids[ids.length - 1]!;
			await new Promise((resolve) => setImmediate(resolve));
		}
	}

	/** Every id of `kind` met in `serverId` (its partition alone). */
	public async ofServer(kind: RegistryKind, serverId: string): Promise<string[]> {
		const ids: string[] = [];
		for await (const slice of this.walk(partitionKey(kind, serverId))) ids.push(...slice.ids);
		return ids;
	}

	/** The ids of `kind` in the set before partitions that start with `prefix`, read from where they start in the set's order. */
	public async unpartitionedWithPrefix(kind: RegistryKind, prefix: string): Promise<string[]> {
		const found: string[] = [];
		let after = prefix;
		for (;;) {
			const slice = await this.page(Records.registry(kind), after);
			const matching = slice.filter((id) => id.startsWith(prefix));
			found.push(...matching);
			if (slice.length < REGISTRY_SLICE || matching.length < slice.length) return found;
			after = slice[slice.length - 1]!;
		}
	}

	/** Every id of `kind`, read a slice at a time: for the small registries (purges pending) and tools. */
	public async every(kind: RegistryKind): Promise<string[]> {
		const ids: string[] = [];
		for await (const slice of this.slices(kind)) ids.push(...slice.ids);
		return ids;
	}

	/**
	 * Takes off their bucket's list the servers whose partitions are all empty, so that a walk costs what is stored now. A
	 * server is taken off, then its partitions read again and the server put back if one holds an id: a registration adds
	 * the id and the server in one write (see registration), so one that landed after the second read lists the server again.
	 * Resolves with how many servers went.
	 */
	public async dropEmptyServers(): Promise<number> {
		let dropped = 0;
		for await (const { partition, ids } of this.servers())
			for (let at = 0; at < ids.length; at += SERVERS_AT_ONCE) {
				const empty = await this.withoutIds(ids.slice(at, at + SERVERS_AT_ONCE));
				if (empty.length === 0) continue;
				await this.store.removeFromSets([{ key: partition, members: empty }]);
				const emptyStill = new Set(await this.withoutIds(empty));
				const refilled = empty.filter((serverId) => !emptyStill.has(serverId));
				if (refilled.length > 0) await this.store.addToSets([{ key: partition, members: refilled }]);
				dropped += emptyStill.size;
			}
		return dropped;
	}

	/**
	 * Moves the ids of the buckets of the layout before sets (`registry:<kind>:<0-63>`) into the sets of the layout before
	 * partitions (which the sweep then moves into partitions), then deletes each bucket, unless another process (of the
	 * version before) wrote it meanwhile: it is moved at the next call. One read of every bucket, at open and at each sweep;
	 * resolves with how many ids were moved.
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

	/**
	 * Every id of each of `partitions`, a slice at a time: the first pages of {@link SETS_AT_ONCE} sets read at once, so that a
	 * walk of many small sets waits for a round trip per group, not per set (a set is read from where its first page ends).
	 */
	private async *walkEach(partitions: readonly SetKey[], size = REGISTRY_SLICE): AsyncGenerator<RegistrySlice> {
		for (let at = 0; at < partitions.length; at += SETS_AT_ONCE) {
			const group = partitions.slice(at, at + SETS_AT_ONCE);
			const firsts = await Promise.all(group.map((partition) => this.page(partition, null, size)));
			for (const [index, partition] of group.entries()) {
				const ids = firsts[index]!;
				if (ids.length > 0) yield { partition, ids };
				if (ids.length === size) yield* this.walk(partition, size, ids.at(-1)!);
			}
			await new Promise((resolve) => setImmediate(resolve));
		}
	}

	/** The servers among `serverIds` whose partitions hold no id. */
	private async withoutIds(serverIds: readonly string[]): Promise<string[]> {
		const held = await Promise.all(
			serverIds.map(async (serverId) => {
				const firsts = await Promise.all(PER_SERVER_KINDS.map((kind) => this.page(partitionKey(kind, serverId), null, 1)));
				return firsts.some((first) => first.length > 0);
			})
		);
		return serverIds.filter((_, index) => !held[index]);
	}
}
