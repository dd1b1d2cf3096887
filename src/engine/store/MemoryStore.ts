import type Keyv from 'keyv';
import { MemoryError, storeError } from '../errors';
import type { StorageKind } from '../schemas';
import { releaseConnection } from './backends';
import { type AtomicAdapter, isAtomicAdapter, type RowChange, type StoredRow } from './compareAndSet';
import { updateRows } from './updateRows';
import { type DamageReason, DamagedValues } from './DamagedValues';
import { type Envelope, openedData, unwrap, wrap } from './envelope';
import { KeyedLock } from './KeyedLock';
import { openStore, type StoreOptions, type StoreParts } from './openStore';
import { ReadBack } from './ReadBack';
import type { Sealer } from './Sealer';
import type { SetChange } from './sets';
import { StoreHealth } from './StoreHealth';
import { StoreSets } from './StoreSets';

export type { SetChange };

/** One write of a batch. */
export interface StoreWrite {
	key: string;
	value: unknown;
	/** Lets the backend drop the key on its own once it can no longer be served. */
	ttlMs?: number;
}

/** What {@link MemoryStore.update}'s change returns: the new value, `null` to leave the key as it is, or `'delete'`. */
export type UpdateResult<T> = { value: T; ttlMs?: number } | null | 'delete';

/**
 * The engine's only door to storage: versioned values on keyv, read as their schema allows (see
 * storedValues.ts), per-key write serialisation, and one error type for every adapter failure.
 */
export class MemoryStore {
	public readonly keyv: Keyv;
	public readonly lock = new KeyedLock();
	/**
	 * Changes to keys several shard processes write, read back until they stay: only for a host's Keyv, whose
	 * adapter offers no compare-and-set; on the stores the engine opens, {@link update} is atomic and this does nothing.
	 */
	public readonly readBack: ReadBack;
	/** The backend, as `/session status` names it. */
	public readonly kind: StorageKind;
	/** Whether the store answers, told once per outage and once per recovery. */
	public readonly health = new StoreHealth();
	/** Values read as missing because they could not be used (counted, told once per key). */
	public readonly damaged = new DamagedValues();
	/** Seals values before they reach keyv (`MEMORY_ENCRYPTION_KEY`); null: values are stored as they are. */
	public readonly sealer: Sealer | null;
	/** Sets of ids (see store/sets.ts): the backend's own, or values of a host's Keyv. */
	private readonly sets: StoreSets;
	/** The adapter's compare-and-set, when it has one (see {@link update}). */
	private readonly atomic: AtomicAdapter | null;
	/** The URL the store was opened on; null for a Keyv the host passed, which the engine never closes. */
	private readonly ownedUrl: string | null;
	/** Null on SQLite: a local file answers or fails within its busy timeout. */
	private readonly timeoutMs: number | null;
	private readonly namespace: string;

	private constructor({ keyv, namespace, ownedUrl, kind, timeoutMs, sealer }: StoreParts) {
		this.keyv = keyv;
		this.sealer = sealer;
		this.namespace = namespace;
		this.ownedUrl = ownedUrl;
		this.kind = kind;
		this.timeoutMs = kind === 'sqlite' ? null : timeoutMs;
		this.atomic = isAtomicAdapter(keyv.store) ? keyv.store : null;
		this.readBack = new ReadBack((key) => this.get(key), { needed: this.atomic === null });
		const call = <T>(operation: string, task: () => Promise<T>) => this.call(operation, task);
		this.sets = new StoreSets({ adapter: keyv.store, namespace, storeKey: (key) => this.storeKey(key), call, values: this });
		// Surface adapter failures as rejections instead of silent misses.
		this.keyv.throwOnErrors = true;
		this.keyv.on('error', () => undefined);
	}

	/** The value under `key`, as its schema allows; `T` names what the key holds. */
	public async get<T>(key: string): Promise<T | undefined> {
		const envelope = await this.call(`get ${key}`, () => this.keyv.get<Envelope>(key));
		return unwrap(key, envelope, this.sealer, this.noteDamage) as T | undefined;
	}

	/** The envelope under `key` as keyv reads it: unchecked, still sealed. */
	public envelope(key: string): Promise<Envelope | undefined> {
		return this.call(`get ${key}`, () => this.keyv.get<Envelope>(key));
	}

	/**
	 * The value under `key`, and whether a row was there that could not be used (see DamagedValues): erasure
	 * deletes such a row, which may hold anything.
	 */
	public async getChecked<T>(key: string): Promise<{ value: T | undefined; damaged: boolean }> {
		return (await this.getManyChecked<T>([key]))[0]!;
	}

	public async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
		const envelopes = await this.envelopes(keys);
		return envelopes.map((envelope, index) => unwrap(keys[index]!, envelope, this.sealer, this.noteDamage) as T | undefined);
	}

	/** {@link getMany}, each value with whether a row was there that could not be used (see {@link getChecked}). */
	public async getManyChecked<T>(keys: readonly string[]): Promise<{ value: T | undefined; damaged: boolean }[]> {
		const envelopes = await this.envelopes(keys);
		return envelopes.map((envelope, index) => {
			let damaged = false;
			const value = unwrap(keys[index]!, envelope, this.sealer, (key, reason) => {
				damaged = true;
				this.damaged.noted(key, reason);
			}) as T | undefined;
			return { value, damaged };
		});
	}

	/** Stores `value`; `ttlMs` lets the backend drop it on its own once it can no longer be served. */
	public async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
		await this.call(`set ${key}`, () => this.keyv.set(key, wrap(key, value, this.sealer), ttlMs));
	}

	/**
	 * Stores every write at once: on SQLite, Redis and PostgreSQL the batch lands whole, even if the process is killed, and
	 * with it the members `setAdds` adds (one transaction, MULTI or statement). On a host's Keyv the members are added first.
	 */
	public async setMany(writes: readonly StoreWrite[], setAdds: readonly SetChange[] = []): Promise<void> {
		if (writes.length > 0 && setAdds.some(({ members }) => members.length > 0) && this.sets.native)
			return this.sets.landWith(
				writes.map(({ key, value, ttlMs }) => ({ key, envelope: wrap(key, value, this.sealer), ttlMs })),
				setAdds
			);
		await this.sets.add(setAdds);
		if (writes.length === 0) return;
		await this.call(`setMany (${writes.length} keys)`, () =>
			this.keyv.setMany(writes.map(({ key, value, ttlMs }) => ({ key, value: wrap(key, value, this.sealer), ttl: ttlMs })))
		);
	}

	public async delete(keys: readonly string[]): Promise<void> {
		if (keys.length === 0) return;
		await this.call(`delete (${keys.length} keys)`, () => this.keyv.delete([...keys]));
	}

	/** Adds members to sets, blind: nothing read, nothing compared, so processes adding at once never conflict. */
	public addToSets(changes: readonly SetChange[]): Promise<void> {
		return this.sets.add(changes);
	}

	/** Removes members from sets, blind; a set left empty is gone. */
	public removeFromSets(changes: readonly SetChange[]): Promise<void> {
		return this.sets.remove(changes);
	}

	/** The members of each set, sorted, in one round trip. */
	public setMembers(keys: readonly string[]): Promise<string[][]> {
		return this.sets.members(keys);
	}

	/** Up to `limit` members of a set after `after` (from the first when null), in the backend's stable order: a slice of a walk. */
	public setMembersPage(key: string, after: string | null, limit: number): Promise<string[]> {
		return this.sets.page(key, after, limit);
	}

	public deleteSets(keys: readonly string[]): Promise<void> {
		return this.sets.delete(keys);
	}

	/** Read-modify-write of one key, serialised with this process's other updates of it: `change` gives the value, null, or 'delete'. */
	public update<T>(key: string, change: (current: T | undefined) => UpdateResult<T>): Promise<T | undefined> {
		return this.lock.run(key, () => this.updateHeld(key, change));
	}

	/**
	 * {@link update} for a caller that holds the key's lock already (taking it again would wait for itself): the read and
	 * the write are still one compare-and-set against other processes.
	 */
	public async updateHeld<T>(key: string, change: (current: T | undefined) => UpdateResult<T>): Promise<T | undefined> {
		if (this.atomic) return this.updateAtomically(key, change);
		const current = await this.get<T>(key);
		const next = change(current);
		if (next === 'delete' && current !== undefined) await this.delete([key]);
		else if (next !== null && next !== 'delete') await this.set(key, next.value, next.ttlMs);
		return next === null ? current : next === 'delete' ? undefined : next.value;
	}

	/**
	 * Every key of the namespace with the data its envelope holds, unsealed but unchecked (null for a seal that does not
	 * open), through Keyv's iterator. It reads the whole namespace: a tool for operators, never the reply path.
	 */
	public async *scan(): AsyncGenerator<[key: string, data: unknown]> {
		for await (const [key, envelope] of this.scanEnvelopes()) yield [key, openedData(key, envelope as Envelope, this.sealer)];
		// Then every set the backend holds natively, with its members (ids, never sealed).
		yield* this.sets.scan();
	}

	public async close(): Promise<void> {
		if (this.ownedUrl === null || !releaseConnection(this.ownedUrl)) return;
		await this.keyv.disconnect();
	}

	/**
	 * A compare-and-set of one row as it is stored: `decide` gets the row (its envelope, unchecked and still sealed, and
	 * when it expires; undefined when there is none or it has expired) and returns what to write (`'delete'`, or null to
	 * leave it) with the result to resolve with. When another process wrote the row in between, it is read again and
	 * `decide` runs again, so no process's change is lost. Only on the stores the engine opens (see compareAndSet.ts).
	 */
	public async updateRow<R>(key: string, decide: (row: StoredRow | undefined) => RowChange<R>): Promise<R> {
		return (await this.updateRows([key], (_, row) => decide(row)))[0]!;
	}

	/**
	 * {@link updateRow} of several keys (each named once) in one read and one compare-and-set round trip, where the
	 * adapter can; the keys another process wrote in between are read and decided again. Resolves with each key's result.
	 */
	public async updateRows<R>(keys: readonly string[], decide: (key: string, row: StoredRow | undefined) => RowChange<R>): Promise<R[]> {
		const adapter = this.atomic;
		if (!adapter) throw new MemoryError('INVALID_CONFIG', 'This needs a store opened from its URL (sqlite://, redis:// or postgres://).');
		return updateRows(
			{ adapter, keyv: this.keyv, call: (operation, task) => this.call(operation, task), storeKey: (key) => this.storeKey(key) },
			keys,
			decide
		);
	}

	/**
	 * {@link update} of several keys (each named once) at once: on the stores the engine opens, one read and one
	 * compare-and-set round trip for all of them (see {@link updateRows}), serialised with every other update of those keys
	 * in this process. `change` gets each key and its value, and may run more than once for a key. Resolves with each
	 * key's value as written (or left), in the order of `keys`.
	 */
	public async updateMany<T>(
		keys: readonly string[],
		change: (key: string, current: T | undefined) => UpdateResult<T>
	): Promise<(T | undefined)[]> {
		const unique = [...new Set(keys)];
		if (unique.length === 0) return [];
		const written = this.atomic
			? await this.lock.runAll(unique, () =>
					this.updateRows(unique, (key, row) => this.decided(key, row, (current: T | undefined) => change(key, current)))
				)
			: await Promise.all(unique.map((key) => this.update<T>(key, (current) => change(key, current))));
		const byKey = new Map(unique.map((key, index) => [key, written[index]]));
		return keys.map((key) => byKey.get(key));
	}

	/** Every key of the namespace with its stored envelope as keyv reads it (still sealed): a scan of the whole namespace. */
	public async *scanEnvelopes(): AsyncGenerator<[key: string, envelope: unknown]> {
		await this.health.gate.refusal('scan');
		const iterate = this.keyv.iterator;
		if (!iterate) throw storeError('scan', new Error('this store cannot list its keys (its Keyv adapter has no iterator)'));
		try {
			for await (const [key, value] of iterate.call(this.keyv, this.namespace)) yield [String(key), value];
		} catch (error) {
			throw storeError('scan', error);
		}
	}

	/**
	 * {@link update} across processes, through {@link updateRow}: the value is read, changed and written back by
	 * compare-and-set. `change` may run more than once.
	 */
	private updateAtomically<T>(key: string, change: (current: T | undefined) => UpdateResult<T>): Promise<T | undefined> {
		return this.updateRow<T | undefined>(key, (row) => this.decided(key, row, change));
	}

	/** What {@link update}'s `change` decides for the row of `key`, as {@link updateRows} writes it. */
	private decided<T>(key: string, row: StoredRow | undefined, change: (current: T | undefined) => UpdateResult<T>): RowChange<T | undefined> {
		const current = unwrap(key, row?.envelope, this.sealer, this.noteDamage) as T | undefined;
		const next = change(current);
		if (next === null) return { row: null, result: current };
		if (next === 'delete') return { row: 'delete', result: undefined };
		const expires = next.ttlMs === undefined ? undefined : Date.now() + next.ttlMs;
		return { row: { envelope: wrap(key, next.value, this.sealer), expires }, result: next.value };
	}

	private readonly noteDamage = (key: string, reason: DamageReason) => this.damaged.noted(key, reason);

	/** The envelopes under `keys`, in one call where the adapter can. */
	private async envelopes(keys: readonly string[]): Promise<(Envelope | undefined)[]> {
		if (keys.length === 0) return [];
		// Keyv's own getMany, over a store without one (a Map, many custom stores), reads a key that failed as missing,
		// and capture would then write over what it could not read: those keys are read one by one here, so a failure rejects.
		const batched = Boolean((this.keyv.store as { getMany?: unknown }).getMany);
		const read = batched ? () => this.keyv.get<Envelope>([...keys]) : () => Promise.all(keys.map((key) => this.keyv.get<Envelope>(key)));
		return this.call(`getMany (${keys.length} keys)`, read);
	}

	/** The key as keyv hands it to the adapter: under the namespace (keyv leaves a key that already starts with it). */
	private storeKey(key: string): string {
		return key.startsWith(`${this.namespace}:`) ? key : `${this.namespace}:${key}`;
	}

	/** One adapter call, timed and told to the store's health (see {@link StoreHealth.call}). */
	private call<T>(operation: string, task: () => Promise<T>): Promise<T> {
		return this.health.call(operation, task, this.timeoutMs);
	}

	/** Opens the store behind `storeUrl`, or wraps a Keyv the host already has (see openStore). */
	public static open(options: StoreOptions): Promise<MemoryStore> {
		return openStore(options, (parts) => new MemoryStore(parts));
	}
}
