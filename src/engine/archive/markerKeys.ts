import { type RecordKey, Records } from '../records/Records';

/*
 * An archive's markers are keyed by the scope's tag (`seen:<tag>:<id>`); archives written before keep their untagged ones
 * (`archive:<scope>:seen:<id>`) until they expire. Both are read in the same round trip, the tagged one winning, and both
 * are deleted; only tagged ones are written.
 */

/** The keys to read for the markers of `ids`: every tagged key, then every untagged one (see {@link markersRead}). */
export function markerKeysToRead(scopeKey: string, ids: readonly string[]): RecordKey<unknown>[] {
	return [...ids.map((id) => Records.archiveMarker(scopeKey, id)), ...ids.map((id) => Records.archiveMarkerUntagged(scopeKey, id))];
}

/** The markers of `count` ids from the values of {@link markerKeysToRead}'s keys: each tagged one, or else the untagged one. */
export function markersRead(values: readonly unknown[], count: number): unknown[] {
	return Array.from({ length: count }, (_, index) => values[index] ?? values[count + index]);
}

/** The keys that deleting the markers of `ids` deletes: both forms. */
export function markerKeysToDelete(scopeKey: string, ids: readonly string[]): RecordKey<unknown>[] {
	return markerKeysToRead(scopeKey, ids);
}
