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

/** The value an envelope read from `key` holds, as the engine may use it; undefined when missing. */
export function unwrap(key: string, envelope: Envelope | undefined | null): unknown {
	if (envelope === undefined || envelope === null) return undefined;
	// A value from another schema version, or one that does not parse, is not trusted; the write path rebuilds it.
	if (typeof envelope !== 'object' || envelope.v !== SCHEMA_VERSION) return unreadableValue(key);
	return readStoredValue(key, envelope.d);
}
