import type { Envelope } from './envelope';

/**
 * Writes `next` under `key` (the adapter's key, namespace included) only while the row still holds `expected`,
 * both as the adapter stores them (keyv's serialized text); `undefined` stands for no row, so a `next` of
 * undefined deletes it. Resolves with whether the write happened. Atomic across every process sharing the store:
 * a read-modify-write built on it loses no other process's change, where a plain read then write would.
 */
export type CompareAndSet = (key: string, expected: string | undefined, next: string | undefined, ttlMs?: number) => Promise<boolean>;

/** An adapter that offers {@link CompareAndSet}: the SQLite, Redis and PostgreSQL stores the engine opens. */
export interface AtomicAdapter {
	/** The row as the adapter stores it, undefined when there is none. */
	get(key: string): Promise<unknown>;
	compareAndSet: CompareAndSet;
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
