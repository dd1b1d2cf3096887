import { constants, deflateSync, inflateSync } from 'node:zlib';

/**
 * Characters from which a value is stored compressed in an SQLite file. An archive chunk (some 9 KB of JSON for 64
 * messages of chat) takes a third of its size compressed, a short-term entry or an index about half; below this, a value
 * (a marker, a head, a setting) gains too little to pay for its compression on every write.
 */
export const COMPRESS_FROM_CHARS = 512;

/**
 * Level 1: on chat JSON it compresses within a few percent of the default level, in two thirds of its time (some 90 µs
 * for a chunk, which every append rewrites).
 */
const LEVEL = constants.Z_BEST_SPEED;

/** What an SQLite row holds for a value: the text itself, or its zlib stream as a BLOB (see {@link COMPRESS_FROM_CHARS}). */
export type SqliteValue = string | Buffer;

/**
 * `text` as the row stores it: a zlib stream (with its header, so that a reader of the raw file can find where one begins)
 * when it is long enough to be worth it and comes out shorter, the text otherwise.
 */
export function storedValue(text: string): SqliteValue {
	if (text.length < COMPRESS_FROM_CHARS) return text;
	const compressed = deflateSync(text, { level: LEVEL });
	return compressed.length < Buffer.byteLength(text) ? compressed : text;
}

/**
 * What a BLOB that does not inflate (a damaged row) reads as: not JSON, so the store reads it as damaged and the next write
 * replaces it (a compare-and-set compares this same text), where a throw would fail every read that includes the row.
 */
export const UNINFLATABLE = 'a compressed value that does not inflate';

/** The text a row holds: a BLOB is a zlib stream (see {@link storedValue}), anything else is the text as written. */
export function valueText(stored: unknown): string | undefined {
	if (stored === undefined || stored === null) return undefined;
	if (!Buffer.isBuffer(stored) && !(stored instanceof Uint8Array)) return String(stored);
	try {
		return inflateSync(stored).toString('utf8');
	} catch {
		return UNINFLATABLE;
	}
}
