/** Members to add to, or remove from, one set. */
export interface SetChange {
	key: string;
	members: readonly string[];
}

/** One row of a batch as the adapter stores it: keyv's serialized text under the adapter's key. */
export interface RawWrite {
	key: string;
	value: string;
	ttlMs?: number;
}

/**
 * Sets as a backend holds them natively: a second table beside keyv's (SQLite, PostgreSQL) or a Redis sorted set per key.
 * Keys are the adapter's, the namespace included. Adding and removing are blind (no read, no compare-and-set): two
 * processes adding at once never conflict, and adding a member twice, or removing one that is not there, changes nothing.
 * Members are ids only, stored as they are (never sealed).
 */
export interface NativeSets {
	add(changes: readonly SetChange[]): Promise<void>;
	remove(changes: readonly SetChange[]): Promise<void>;
	/** The members of each key, in one round trip. */
	members(keys: readonly string[]): Promise<string[][]>;
	/**
	 * Up to `limit` members of `key` after `after` (from the first when null), in the backend's stable order (by member),
	 * each page read from an index: a walk of a set in pages costs what the set holds, once.
	 */
	page(key: string, after: string | null, limit: number): Promise<string[]>;
	delete(keys: readonly string[]): Promise<void>;
	/** Writes the rows and adds the members together: both land, or neither. */
	writeWith(rows: readonly RawWrite[], adds: readonly SetChange[]): Promise<void>;
	/** Every set of `namespace`, with its members: for operators' scans, never the reply path. */
	iterate(namespace: string): AsyncGenerator<[key: string, members: string[]]>;
	/** Deletes every set of `namespace`. */
	clear(namespace: string): Promise<void>;
}

/** An adapter that holds sets natively: the engine's own SQLite, Redis and PostgreSQL stores. */
export interface SetAdapter {
	readonly sets: NativeSets;
}

export function isSetAdapter(adapter: unknown): adapter is SetAdapter {
	return typeof (adapter as Partial<SetAdapter> | null)?.sets?.add === 'function';
}

/** The changes with their empty ones left out, each key once (members of a key named twice merged). */
export function mergedChanges(changes: readonly SetChange[]): SetChange[] {
	const byKey = new Map<string, Set<string>>();
	for (const { key, members } of changes) {
		if (members.length === 0) continue;
		const merged = byKey.get(key) ?? new Set<string>();
		for (const member of members) merged.add(member);
		byKey.set(key, merged);
	}
	return [...byKey].map(([key, members]) => ({ key, members: [...members] }));
}
