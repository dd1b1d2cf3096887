import type { StoredMessage } from '../../schemas';
import type { PostingBlocks } from './PostingBlocks';
import type { SpeakerAliases } from './SpeakerAliases';

/**
 * Per message, in {@link IndexColumns.stats}: distinct raw tokens of its text, of its surroundings, of its author's
 * name; tokens of its line; where its terms start; who wrote it (its speaker's number); 1 when its text names something
 * or holds a number (`namesOrCounts`, ranking.ts), else 0; its words' mask (see {@link wordMask}; 0 past
 * {@link REPEATED_LINE_MAX_CHARS}).
 */
export const TEXT_LENGTH = 0;
export const AROUND_LENGTH = 1;
export const NAME_LENGTH = 2;
export const LINE_TOKENS = 3;
export const TERMS_START = 4;
export const SPEAKER = 5;
export const SPECIFIC = 6;
export const WORD_MASK = 7;
export const STRIDE = 8;
/** A line's tokens not counted yet. */
export const UNCOUNTED = -1;

/** Lines said again are short ("Hey you. Long day?"); longer ones are taken as said once, and get no mask. */
export const REPEATED_LINE_MAX_CHARS = 80;

/**
 * A text's words (their keys, see `lineWords` in terms.ts) as one bit each of 32: two texts of nearly the same words have nearly the same
 * masks, so comparing masks finds the few pairs of lines worth comparing word by word.
 */
export function wordMask(keys: Iterable<number>): number {
	let mask = 0;
	// The top bits of a multiplicative mix: any bits of the keys would do, but these spread short words best.
	for (const key of keys) mask |= 1 << (Math.imul(key, 0x9e3779b1) >>> 27);
	return mask;
}

/** A message's fields besides its id, text and time: few in a channel, so kept once each. */
export type Speaker = Pick<StoredMessage, 'role' | 'authorId' | 'authorName' | 'personaId'>;

/**
 * What a search index holds, as columns: its messages (ids, texts, times, speakers) and their words as integers in
 * typed arrays (per-message figures; each message's `(term key, count)` pairs while the index is small, postings by
 * term past that). Adding (`append.ts`) and ranking (`rank.ts`) read and write them in place.
 */
export interface IndexColumns {
	ids: string[];
	texts: string[];
	/** A plain array of numbers: for the few messages of most channels, cheaper than a typed array's own objects. */
	times: number[];
	/** Whether `times` never goes back (messages appended as they were written): a span of them is then found by a binary search. */
	timesInOrder: boolean;
	speakers: Speaker[];
	/** Past a few dozen speakers: each speaker's number, by its fields. */
	speakerNumbers: Map<string, number> | null;
	/** Past the scanned size, the places in the order of their ids, for a binary search (below it a scan is as quick). */
	order: Int32Array<ArrayBuffer> | null;
	/** Per message, {@link STRIDE} figures (see {@link TEXT_LENGTH}). */
	stats: Int32Array<ArrayBuffer>;
	/** While the index is small: each message's `(term key, count)` pairs, from its `TERMS_START`. */
	terms: Int32Array<ArrayBuffer> | null;
	termsUsed: number;
	/** Past the scanned size: postings by term key. */
	postings: PostingBlocks | null;
	textTotal: number;
	aroundTotal: number;
	nameTotal: number;
	messageBytes: number;
	/** Messages up to which queries scan each message's terms. */
	readonly scannedUpTo: number;
	/** The names the channel's speakers go by besides their display names. */
	aliases: SpeakerAliases;
}

/** A total order of message ids that puts Discord's in their numeric order (a longer one is larger). */
export function compareIds(a: string, b: string): number {
	return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Where `id` is or would go among the ids in order (once the index keeps them in order). */
export function rankOf(columns: IndexColumns, id: string): number {
	const order = columns.order!;
	let low = 0;
	let high = columns.ids.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (compareIds(columns.ids[order[middle]!]!, id) < 0) low = middle + 1;
		else high = middle;
	}
	return low;
}

/** Where message `id` is (from 0, oldest first), if the columns hold it. */
export function placeOf(columns: IndexColumns, id: string): number | undefined {
	if (!columns.order) {
		const at = columns.ids.lastIndexOf(id);
		return at < 0 ? undefined : at;
	}
	const rank = rankOf(columns, id);
	const at = columns.order[rank];
	return rank < columns.ids.length && columns.ids[at!] === id ? at : undefined;
}
