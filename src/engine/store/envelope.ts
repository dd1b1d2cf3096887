import { MemoryError } from '../errors';
import type { DamageReason } from './DamagedValues';
import { UNREADABLE_ROW } from './DamagedValues';
import type { Sealer } from './Sealer';
import { readStoredValue, unreadableValue } from './storedValues';

/** Bumped whenever a stored shape changes; older values are read as unreadable (see {@link unreadableValue}) and rebuilt. */
export const SCHEMA_VERSION = 1;

/**
 * What the store holds under each key: the schema version it was written in, and the value as it is (`d`), or sealed
 * with `MEMORY_ENCRYPTION_KEY` (`s`, see Sealer).
 */
export interface Envelope<T = unknown> {
	v: number;
	d?: T;
	s?: string;
}

/** `value` as it is stored under `key`: sealed when the store is encrypted. */
export function wrap<T>(key: string, value: T, sealer: Sealer | null): Envelope<T> {
	return sealer ? { v: SCHEMA_VERSION, s: sealer.seal(key, JSON.stringify(value)) } : { v: SCHEMA_VERSION, d: value };
}

/**
 * The value an envelope read from `key` holds, as the engine may use it; undefined when missing. A value that
 * cannot be used (not JSON, no envelope, another schema version, a broken seal, not sealed in a store that is, the wrong
 * shape) is told to `onDamaged` and read as {@link unreadableValue}: the write path rebuilds it. A sealed value without its
 * key is not damage but a setting missing: it rejects with `INVALID_CONFIG`, and is never overwritten. With a key set every
 * value must be sealed: a plain one was written by someone without the key, who must not decide what the bot remembers.
 */
export function unwrap(
	key: string,
	envelope: Envelope | undefined | null,
	sealer: Sealer | null,
	onDamaged?: (key: string, reason: DamageReason) => void
): unknown {
	if (envelope === undefined || envelope === null) return undefined;
	const reason = damageOf(envelope) ?? (sealer && typeof envelope.s !== 'string' ? 'not sealed' : null);
	if (reason === null) {
		const data = typeof envelope.s === 'string' ? opened(key, envelope.s, sealer) : envelope.d;
		if (data !== UNREADABLE_ROW) return readStoredValue(key, data, onDamaged);
	}
	onDamaged?.(key, reason ?? 'broken seal');
	return unreadableValue(key);
}

/** What an envelope holds, unsealed and unchecked (operators' counts); a seal that does not open reads as null. */
export function openedData(key: string, envelope: Envelope | undefined | null, sealer: Sealer | null): unknown {
	if (typeof envelope?.s !== 'string') return envelope?.d;
	const data = sealer ? opened(key, envelope.s, sealer) : UNREADABLE_ROW;
	return data === UNREADABLE_ROW ? null : data;
}

/** The value a seal holds, or {@link UNREADABLE_ROW} for a broken seal. */
function opened(key: string, sealed: string, sealer: Sealer | null): unknown {
	if (!sealer) {
		throw new MemoryError('INVALID_CONFIG', `The stored value of ${key} is encrypted: set MEMORY_ENCRYPTION_KEY to the store's key.`);
	}
	const result = sealer.open(key, sealed);
	if ('failure' in result && result.failure === 'unknown key') {
		throw new MemoryError(
			'INVALID_CONFIG',
			`The stored value of ${key} is sealed with key ${result.keyId}, which is neither MEMORY_ENCRYPTION_KEY nor one of ` +
				'MEMORY_ENCRYPTION_PREVIOUS_KEYS.'
		);
	}
	if ('failure' in result) return UNREADABLE_ROW;
	try {
		return JSON.parse(result.text) as unknown;
	} catch {
		return UNREADABLE_ROW;
	}
}

/** Why an envelope cannot be used, or null when it can (its value is then checked against its shape). */
function damageOf(envelope: Envelope): DamageReason | null {
	if ((envelope as unknown) === UNREADABLE_ROW) return 'not JSON';
	if (typeof envelope !== 'object' || !('v' in envelope)) return 'no envelope';
	return envelope.v === SCHEMA_VERSION ? null : 'another schema version';
}
