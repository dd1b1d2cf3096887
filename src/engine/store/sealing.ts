import { MemoryError } from '../errors';
import { type Envelope, openedData } from './envelope';
import { Keys } from './keys';
import type { MemoryStore } from './MemoryStore';

/** What `reseal` did: values sealed again with the current key, values it already sealed, and values that did not open. */
export interface ResealResult {
	/** Values sealed again with the current key (or sealed for the first time). */
	resealed: number;
	/** Values already sealed with the current key. */
	current: number;
	/** Values that no key opens, left as they are. */
	damaged: number;
}

/**
 * Checks that the encryption key fits the store, before any value is read or written: a store sealed before but opened
 * without `MEMORY_ENCRYPTION_KEY`, or with a key that does not open it, fails with `INVALID_CONFIG`. The store's check
 * value (`encryption:check`), sealed with the key of the first sealed write, tells. A store not sealed yet that is opened
 * with a key is sealed whole first (as `reseal` seals, its check value last, so a start cut short seals again), and
 * `report` says which was found: from then on a value not sealed is read as damaged. Resolves to how many values were
 * sealed then (their plain rows are gone, but an SQLite file's pages may still hold them).
 */
export async function checkSeal(store: MemoryStore, report: (message: string) => void = () => undefined): Promise<number> {
	const key = Keys.sealCheck();
	// A store that does not answer now (a host's Keyv is not pinged at start-up) is checked at the next start: its outage is
	// told by the store's health, and a value sealed with a key not configured still rejects when read.
	let envelope: Envelope | undefined;
	try {
		envelope = await store.envelope(key);
	} catch {
		return 0;
	}
	const sealed = typeof envelope?.s === 'string' ? envelope.s : null;
	if (sealed === null) {
		if (!store.sealer) return 0;
		const { message, resealed } = await sealWhole(store);
		report(message);
		return resealed;
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
	return 0;
}

/** Seals a store not sealed yet whole: what it found, and how many values it sealed. */
async function sealWhole(store: MemoryStore): Promise<{ message: string; resealed: number }> {
	let result: ResealResult;
	try {
		result = await resealValues(store, true);
	} catch (error) {
		// A host's Keyv that cannot list its keys: what it holds unsealed is read as damaged, never served.
		await store.set(Keys.sealCheck(), { sealed: true });
		const message =
			`[memory] MEMORY_ENCRYPTION_KEY is set on a store that was not sealed, whose values could not be read to seal them ` +
			`(${error instanceof Error ? error.message : String(error)}): every value not sealed is read as damaged.`;
		return { message, resealed: 0 };
	}
	await store.set(Keys.sealCheck(), { sealed: true });
	const { resealed, damaged } = result;
	if (resealed === 0 && damaged === 0)
		return { message: '[memory] MEMORY_ENCRYPTION_KEY is set on a store that holds nothing yet: every value is sealed.', resealed };
	const message =
		`[memory] MEMORY_ENCRYPTION_KEY is set on a store that was not sealed: its ${resealed} values were sealed before it ` +
		`served any${damaged > 0 ? ` (${damaged} damaged ones left as they were)` : ''}.`;
	return { message, resealed };
}

/**
 * Seals again with `MEMORY_ENCRYPTION_KEY` every value sealed with a previous key, keeping when each expires, so that the
 * previous keys can then be dropped; the store's check value goes last, so a store the old key still opens is one this
 * has not finished. Each value is changed by compare-and-set: a bot writing meanwhile loses nothing. It reads the whole
 * namespace. A value not sealed is counted as damaged and left as it is: in a sealed store it was written by someone
 * without the key (a store not sealed yet is sealed whole when the engine opens with a key).
 */
export async function reseal(store: MemoryStore): Promise<ResealResult> {
	return resealValues(store, false);
}

/** {@link reseal}; `sealPlain`: values not sealed are sealed too (a store being sealed for the first time). */
async function resealValues(store: MemoryStore, sealPlain: boolean): Promise<ResealResult> {
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
			if (!sealPlain && typeof envelope?.s !== 'string') return { row: null, result: 'damaged' };
			const data = typeof envelope === 'object' && 'v' in envelope ? openedData(key, envelope, sealer) : null;
			if (data === null || data === undefined) return { row: null, result: 'damaged' };
			return { row: { envelope: { v: envelope!.v, s: sealer.seal(key, JSON.stringify(data)) }, expires: row.expires }, result: 'resealed' };
		});
		if (outcome) result[outcome]++;
	}
	return result;
}
