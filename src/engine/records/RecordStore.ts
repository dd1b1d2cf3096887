import type { StorageKind } from '../schemas';
import type { StoreHealthCounters } from '../schemas/storeHealth';
import type { MemoryStore, UpdateResult } from '../store/MemoryStore';
import { reseal, type ResealResult } from '../store/sealing';
import { type StorageSize, storageSize } from '../store/storageSize';
import type { RecordKey, RecordSetChange, SetKey } from './Records';

export type { UpdateResult, ResealResult, StorageSize };

/** What the store's own counters say, for `memory.stats()`. */
export interface RecordStoreCounters {
	store: StoreHealthCounters;
	/** Changes to records several shard processes write that a read-back found lost and wrote again (a host's Keyv only). */
	sharedWritesRepaired: number;
	/** Stored values read as missing because they could not be used. */
	damagedValues: number;
}

/** One write of a batch: a record and its new value. */
export interface RecordWrite<T = unknown> {
	key: RecordKey<T>;
	value: T;
	/** Lets the backend drop the record on its own once it can no longer be served. */
	ttlMs?: number;
}

/** A record as one read found it: `damaged` when a row was there that could not be used, which erasure deletes. */
export interface CheckedRecord<T> {
	value: T | undefined;
	damaged: boolean;
}

/** The values of a list of record keys of different kinds, each typed by its key. */
export type RecordValues<K extends readonly (RecordKey<unknown> | null)[]> = { [I in keyof K]: ValueOf<K[I]> | undefined };

/** What a record key holds (nothing for null). */
type ValueOf<K> = K extends RecordKey<infer T> ? T : never;

/**
 * The store as every part above the records layer sees it: records named by {@link Records}, each read and written as its
 * type says, many in one round trip where the backend can. Locks are taken here, in one order: every key of a call at
 * once, sorted (store/KeyedLock.ts), and from the top down only: conversations' entries and archive heads, then the
 * indexes that list them (directories, author indexes, channel archive lists), then registries (a registry is a set,
 * added to blind; only on a host's Keyv, where it is a value, is it locked). A task holding entries or heads may update
 * an index, and an index's update may note a registry id, never the other way round, so two callers never deadlock.
 */
export class RecordStore {
	public constructor(private readonly store: MemoryStore) {}

	/** The backend, as `/session status` names it. */
	public get kind(): StorageKind {
		return this.store.kind;
	}

	/** Keys with work queued; zero when idle (close waits for it). */
	public get busy(): number {
		return this.store.lock.size;
	}

	public get<T>(key: RecordKey<T>): Promise<T | undefined> {
		return this.store.get<T>(key);
	}

	public getChecked<T>(key: RecordKey<T>): Promise<CheckedRecord<T>> {
		return this.store.getChecked<T>(key);
	}

	/** Records of one kind, in one round trip. */
	public getMany<T>(keys: readonly RecordKey<T>[]): Promise<(T | undefined)[]> {
		return this.store.getMany<T>(keys);
	}

	public getManyChecked<T>(keys: readonly RecordKey<T>[]): Promise<CheckedRecord<T>[]> {
		return this.store.getManyChecked<T>(keys);
	}

	/** Records of different kinds, in one round trip, each typed by its key; a null key is not read, and reads as nothing. */
	public async read<const K extends readonly (RecordKey<unknown> | null)[]>(keys: K): Promise<RecordValues<K>> {
		const wanted = keys.filter((key): key is RecordKey<unknown> => key !== null);
		const values = await this.store.getMany<unknown>(wanted);
		let at = 0;
		return keys.map((key) => (key === null ? undefined : values[at++])) as RecordValues<K>;
	}

	public set<T>(key: RecordKey<T>, value: T, ttlMs?: number): Promise<void> {
		return this.store.set(key, value, ttlMs);
	}

	/**
	 * Every write at once: on SQLite, Redis and PostgreSQL the batch lands whole, even if the process is killed, and the
	 * members `setAdds` adds land with it (on a host's Keyv they are added first).
	 */
	public setMany(writes: readonly RecordWrite[], setAdds: readonly RecordSetChange[] = []): Promise<void> {
		return this.store.setMany(writes, setAdds);
	}

	/** Adds ids to sets, blind (no read, no compare-and-set): processes adding at once never conflict. */
	public addToSets(changes: readonly RecordSetChange[]): Promise<void> {
		return this.store.addToSets(changes);
	}

	/** Removes ids from sets, blind. */
	public removeFromSets(changes: readonly RecordSetChange[]): Promise<void> {
		return this.store.removeFromSets(changes);
	}

	/** The ids of each set, sorted, in one round trip. */
	public setMembers(keys: readonly SetKey[]): Promise<string[][]> {
		return this.store.setMembers(keys);
	}

	/** Up to `limit` ids of a set after `after` (from the first when null), in a stable order: walk a set in slices with it. */
	public setMembersPage(key: SetKey, after: string | null, limit: number): Promise<string[]> {
		return this.store.setMembersPage(key, after, limit);
	}

	public deleteSets(keys: readonly SetKey[]): Promise<void> {
		return this.store.deleteSets(keys);
	}

	public delete(keys: readonly RecordKey<unknown>[]): Promise<void> {
		return this.store.delete(keys);
	}

	/** Read-modify-write of one record, atomic across processes on the stores the engine opens (see MemoryStore.update). */
	public update<T>(key: RecordKey<T>, change: (current: T | undefined) => UpdateResult<T>): Promise<T | undefined> {
		return this.store.update<T>(key, change);
	}

	/** {@link update} inside {@link locked} holding `key`: atomic across processes all the same. */
	public updateHeld<T>(key: RecordKey<T>, change: (current: T | undefined) => UpdateResult<T>): Promise<T | undefined> {
		return this.store.updateHeld<T>(key, change);
	}

	/** {@link update} of several records of one kind in one read and one compare-and-set round trip, where the backend can. */
	public updateMany<T>(
		keys: readonly RecordKey<T>[],
		change: (key: RecordKey<T>, current: T | undefined) => UpdateResult<T>
	): Promise<(T | undefined)[]> {
		return this.store.updateMany<T>(keys, (key, current) => change(key as RecordKey<T>, current));
	}

	/** Runs `task` once no other task of this process holds any of `keys`, holding them all meanwhile. */
	public locked<T>(keys: readonly RecordKey<unknown>[], task: () => Promise<T>): Promise<T> {
		return this.store.lock.runAll(keys, task);
	}

	/**
	 * For a host's Keyv, which has no compare-and-set: whether a change other shard processes may write over holds once
	 * read back, and `repair` run until it does (store/ReadBack.ts); on the stores the engine opens, always true at once.
	 */
	public confirm<T>(key: RecordKey<T>, holds: (stored: T | undefined) => boolean, repair: () => Promise<unknown>): Promise<boolean> {
		return this.store.readBack.confirm<T>(key, holds, repair);
	}

	/** A snapshot of the store's counters. */
	public counters(): RecordStoreCounters {
		return { store: this.store.health.counters, sharedWritesRepaired: this.store.readBack.repairs, damagedValues: this.store.damaged.count };
	}

	/**
	 * Every key of the namespace with what it holds, unsealed but unchecked (a set's key with its ids): for operators
	 * (inventory, channel inspection), never the reply path. A tool that reads keys by their layout lives in the records layer or reads them through
	 * records/scopes.ts.
	 */
	public scan(): AsyncGenerator<[key: string, data: unknown]> {
		return this.store.scan();
	}

	/** What the backend takes on disk, where that is cheap to tell (store/storageSize.ts). */
	public storageSize(storeUrl: string): Promise<StorageSize | null> {
		return storageSize(this.store, storeUrl);
	}

	/** Seals again with the current key every value sealed with a previous one (store/sealing.ts). */
	public reseal(): Promise<ResealResult> {
		return reseal(this.store);
	}

	/** Resolves once read-backs of `key` (or of every key) have settled. */
	public settled(key?: RecordKey<unknown>): Promise<void> {
		return this.store.readBack.settled(key);
	}
}
