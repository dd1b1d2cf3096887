import { MemoryError } from '../errors';
import { type Envelope, openedData } from './envelope';
import { Keys } from './keys';
import type { MemoryStore } from './MemoryStore';

/** What `reseal` did: values sealed again with the current key, values it already sealed, and values that did not open. */
export interface ResealResult {
	resealed: number;
	current: number;
	damaged: number;
}

/**
 * Checks that the encryption key fits the store, before any value is read or written: a store sealed before but opened
 * without `MEMORY_ENCRYPTION_KEY`, or with a key that does not open it, fails with `INVALID_CONFIG`. The store's check
 * value (`encryption:check`), sealed with the key of the first sealed write, tells.
 */
export async function checkSeal(store: MemoryStore): Promise<void> {
	const key = Keys.sealCheck();
	// A store that does not answer now (a host's Keyv is not pinged at start-up) is checked at the next start: its outage is
	// told by the store's health, and a value sealed with a key not configured still rejects when read.
	let envelope: Envelope | undefined;
	try {
		envelope = await store.envelope(key);
	} catch {
		return;
	}
	const sealed = typeof envelope?.s === 'string' ? envelope.s : null;
	if (sealed === null) {
		if (store.sealer) await store.set(key, { sealed: true });
		return;
	}
	if (!store.sealer) {
		throw new MemoryError('INVALID_CONFIG', 'This memory store is encrypted: set MEMORY_ENCRYPTION_KEY to the key it was sealed with.');
	}
	if ('failure' in store.sealer.open(key, sealed)) {
		throw new MemoryError(
			'INVALID_CONFIG',
			'MEMORY_ENCRYPTION_KEY does not open this memory store (nor does any of MEMORY_ENCRYPTION_PREVIOUS_KEYS): ' +
				'set the key it was sealed with, or list it in MEMORY_ENCRYPTION_PREVIOUS_KEYS while `sapphire-memory reseal` runs.'
		);
	}
}

/**
 * Seals again with `MEMORY_ENCRYPTION_KEY` every value sealed with a previous key, or not sealed at all, keeping when
 * each expires, so that the previous keys can then be dropped; the store's check value goes last, so a store the old
 * key still opens is one this has not finished. Each value is changed by compare-and-set: a bot writing meanwhile loses
 * nothing. It reads the whole namespace.
 */
export async function reseal(store: MemoryStore): Promise<ResealResult> {
	const { sealer } = store;
	if (!sealer) throw new MemoryError('INVALID_CONFIG', 'Set MEMORY_ENCRYPTION_KEY to the key to seal the store with.');
	const keys: string[] = [];
	for await (const [key] of store.scanEnvelopes()) if (key !== Keys.sealCheck()) keys.push(key);
	const result: ResealResult = { resealed: 0, current: 0, damaged: 0 };
	for (const key of [...keys, Keys.sealCheck()]) {
		const outcome = await store.updateRow<keyof ResealResult | null>(key, (row) => {
			const envelope = row?.envelope;
			// Gone meanwhile (expired, deleted): nothing to seal.
			if (!row) return { row: null, result: null };
			if (typeof envelope?.s === 'string' && sealer.sealedWithCurrentKey(envelope.s)) return { row: null, result: 'current' };
			const data = typeof envelope === 'object' && 'v' in envelope ? openedData(key, envelope, sealer) : null;
			if (data === null || data === undefined) return { row: null, result: 'damaged' };
			return { row: { envelope: { v: envelope!.v, s: sealer.seal(key, JSON.stringify(data)) }, expires: row.expires }, result: 'resealed' };
		});
		if (outcome) result[outcome]++;
	}
	return result;
}
