import type { DamageReason } from './DamagedValues';
import { UNREADABLE_ROW } from './DamagedValues';
import { readStoredValue, unreadableValue } from './storedValues';

/** Bumped whenever a stored shape changes; older values are read as unreadable (see {@link unreadableValue}) and rebuilt. */
export const SCHEMA_VERSION = 1;

/** What the store holds under each key: the value and the schema version it was written in. */
export interface Envelope<T = unknown> {
	v: number;
	d: T;
}

/** `value` as it is stored. */
export function wrap<T>(value: T): Envelope<T> {
	return { v: SCHEMA_VERSION, d: value };
}

/**
 * The value an envelope read from `key` holds, as the engine may use it; undefined when missing. A value that
 * cannot be used (not JSON, no envelope, another schema version, the wrong shape) is told to `onDamaged` and
 * read as {@link unreadableValue}: the write path rebuilds it.
 */
export function unwrap(key: string, envelope: Envelope | undefined | null, onDamaged?: (key: string, reason: DamageReason) => void): unknown {
	if (envelope === undefined || envelope === null) return undefined;
	const reason = damageOf(envelope);
	if (reason === null) return readStoredValue(key, envelope.d, onDamaged);
	onDamaged?.(key, reason);
	return unreadableValue(key);
}

/** Why an envelope cannot be used, or null when it can (its value is then checked against its shape). */
function damageOf(envelope: Envelope): DamageReason | null {
	if ((envelope as unknown) === UNREADABLE_ROW) return 'not JSON';
	if (typeof envelope !== 'object' || !('v' in envelope)) return 'no envelope';
	return envelope.v === SCHEMA_VERSION ? null : 'another schema version';
}
