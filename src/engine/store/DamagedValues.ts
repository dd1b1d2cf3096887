import { LRUCache } from 'lru-cache';

/** Why a stored value is read as missing. */
export type DamageReason = 'not JSON' | 'no envelope' | 'another schema version' | 'broken seal' | 'not sealed' | 'wrong shape';

/** What a row that is not JSON reads as, once keyv has handed it on: the store sees it and reads the key as missing. */
export const UNREADABLE_ROW: { readonly unreadable: true } = Object.freeze({ unreadable: true });

/**
 * keyv's deserializer for the stores the engine opens: a row that is not JSON (a damaged row, a hand edit)
 * reads as {@link UNREADABLE_ROW} instead of throwing, so one bad row never fails every call that reads it.
 */
export function readRow<Value>(text: string): { value?: Value; expires?: number } {
	try {
		const row = JSON.parse(text) as unknown;
		if (typeof row === 'object' && row !== null && !Array.isArray(row) && 'value' in row) return row as { value?: Value; expires?: number };
	} catch {
		// Read as unreadable below.
	}
	return { value: UNREADABLE_ROW as Value };
}

/**
 * The values the store read as missing because they could not be used: counted (`stats().damagedValues`),
 * and told once per key (the engine logs it), so an operator learns of a damaged row without a log line
 * per read. The next write of the key replaces it, and an erasure deletes it.
 */
export class DamagedValues {
	public count = 0;
	private readonly told = new LRUCache<string, true>({ max: 10_000 });
	private listener: ((key: string, reason: DamageReason) => void) | null = null;

	/** Called once per key (within the last 10,000 keys told). */
	public onDamaged(listener: (key: string, reason: DamageReason) => void): void {
		this.listener = listener;
	}

	public noted(key: string, reason: DamageReason): void {
		this.count++;
		if (this.told.has(key)) return;
		this.told.set(key, true);
		this.listener?.(key, reason);
	}
}
