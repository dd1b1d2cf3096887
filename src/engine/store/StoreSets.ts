import { KeyvSets, type SetValues } from './KeyvSets';
import { isSetAdapter, mergedChanges, type NativeSets, type RawWrite, type SetChange } from './sets';

/** What the store's sets work with: its adapter, its keys as the adapter holds them, its timed calls and its values. */
export interface StoreSetsParts {
	adapter: unknown;
	namespace: string;
	storeKey: (key: string) => string;
	call: <T>(operation: string, task: () => Promise<T>) => Promise<T>;
	values: SetValues;
}

/**
 * The store's sets (see sets.ts): the backend's own where it has them (the stores the engine opens), else values of a host's
 * Keyv (KeyvSets). Keys are the engine's, namespaced here as every other key; each call is timed and told to the store's
 * health as every other call.
 */
export class StoreSets {
	/** The backend's own sets; null on a host's Keyv. */
	public readonly native: NativeSets | null;
	private readonly values: KeyvSets;

	public constructor(private readonly parts: StoreSetsParts) {
		this.native = isSetAdapter(parts.adapter) ? parts.adapter.sets : null;
		this.values = new KeyvSets(parts.values);
	}

	public async add(changes: readonly SetChange[]): Promise<void> {
		const merged = mergedChanges(changes);
		if (merged.length === 0) return;
		const { native } = this;
		if (!native) return this.values.add(merged);
		await this.parts.call(`addToSets (${merged.length} keys)`, () => native.add(this.prefixed(merged)));
	}

	public async remove(changes: readonly SetChange[]): Promise<void> {
		const merged = mergedChanges(changes);
		if (merged.length === 0) return;
		const { native } = this;
		if (!native) return this.values.remove(merged);
		await this.parts.call(`removeFromSets (${merged.length} keys)`, () => native.remove(this.prefixed(merged)));
	}

	public async members(keys: readonly string[]): Promise<string[][]> {
		if (keys.length === 0) return [];
		const { native } = this;
		if (!native) return this.values.members(keys);
		return this.parts.call(`setMembers (${keys.length} keys)`, () => native.members(keys.map(this.parts.storeKey)));
	}

	public page(key: string, after: string | null, limit: number): Promise<string[]> {
		const { native } = this;
		if (!native) return this.values.page(key, after, limit);
		return this.parts.call(`setMembersPage ${key}`, () => native.page(this.parts.storeKey(key), after, limit));
	}

	public async delete(keys: readonly string[]): Promise<void> {
		if (keys.length === 0) return;
		const { native } = this;
		if (!native) return this.values.delete(keys);
		await this.parts.call(`deleteSets (${keys.length} keys)`, () => native.delete(keys.map(this.parts.storeKey)));
	}

	/**
	 * Writes (each value in its envelope) and set additions that land together: only where the sets are native. Each row is
	 * serialized as keyv serializes it (the value, and when it expires), under its key as keyv hands it to the adapter.
	 */
	public async landWith(writes: readonly { key: string; envelope: unknown; ttlMs?: number }[], adds: readonly SetChange[]): Promise<void> {
		const native = this.native!;
		const rows: RawWrite[] = writes.map(({ key, envelope, ttlMs }) => ({
			key: this.parts.storeKey(key),
			value: JSON.stringify({ value: envelope, expires: ttlMs ? Date.now() + ttlMs : undefined }),
			ttlMs
		}));
		await this.parts.call(`setMany (${rows.length} keys, ${adds.length} sets)`, () => native.writeWith(rows, this.prefixed(adds)));
	}

	/** Every native set of the namespace with its members, keys without the namespace (a host's Keyv scans them as values). */
	public async *scan(): AsyncGenerator<[key: string, members: string[]]> {
		if (!this.native) return;
		const prefix = `${this.parts.namespace}:`;
		for await (const [key, members] of this.native.iterate(this.parts.namespace))
			yield [key.startsWith(prefix) ? key.slice(prefix.length) : key, members];
	}

	private prefixed(changes: readonly SetChange[]): SetChange[] {
		return changes.map(({ key, members }) => ({ key: this.parts.storeKey(key), members }));
	}
}
