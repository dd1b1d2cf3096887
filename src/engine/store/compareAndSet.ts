import type { Envelope } from './envelope';

/**
 * Writes `next` under `key` (the adapter's key, namespace included) only while the row still holds `expected`,
 * both as the adapter stores them (keyv's serialized text); `undefined` stands for no row, so a `next` of
 * undefined deletes it. Resolves with whether the write happened. Atomic across every process sharing the store:
 * a read-modify-write built on it loses no other process's change, where a plain read then write would.
 */
export type CompareAndSet = (key: string, expected: string | undefined, next: string | undefined, ttlMs?: number) => Promise<boolean>;

/** One change of {@link CompareAndSetMany}: as {@link CompareAndSet}'s arguments. */
export interface ConditionalWrite {
	key: string;
	expected: string | undefined;
	next: string | undefined;
	ttlMs?: number;
}

/**
 * {@link CompareAndSet} of several keys (each named once) in one round trip: each change lands only while its row still
 * holds what it expects, independently of the others. Resolves with whether each landed, in order.
 */
export type CompareAndSetMany = (writes: readonly ConditionalWrite[]) => Promise<boolean[]>;

/** An adapter that offers {@link CompareAndSet}: the SQLite, Redis and PostgreSQL stores the engine opens. */
export interface AtomicAdapter {
	/** The row as the adapter stores it, undefined when there is none. */
	get(key: string): Promise<unknown>;
	/** The rows as the adapter stores them, in one round trip. */
	getMany?(keys: string[]): Promise<unknown[]>;
	compareAndSet: CompareAndSet;
	/** Where the backend can: many keys in one round trip (the engine's SQLite, Redis and PostgreSQL stores). */
	compareAndSetMany?: CompareAndSetMany;
}

export function isAtomicAdapter(adapter: unknown): adapter is AtomicAdapter {
	return typeof (adapter as Partial<AtomicAdapter> | null)?.compareAndSet === 'function';
}

/** A row as the store holds it: its envelope as keyv reads it (unchecked, still sealed), and when it expires. */
export interface StoredRow {
	envelope: Envelope | undefined;
	expires: number | undefined;
}

/** What `MemoryStore.updateRow`'s decision writes (`null`: nothing), and what the call resolves with. */
export interface RowChange<R> {
	row: { envelope: Envelope; expires: number | undefined } | 'delete' | null;
	result: R;
}
