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
