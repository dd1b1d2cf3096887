import { messageLine } from '../../format/lines';
import { uncachedTokenCount } from '../../format/tokens';
import type { StoredMessage } from '../../schemas';
import { grown, PostingBlocks } from './PostingBlocks';
import {
	AROUND_WINDOW,
	COMMON_TERM_MAX_DOCS,
	COMMON_TERM_MIN_DOCS,
	COMMON_TERM_SHARE,
	distinctiveTerms,
	MAX_POSTINGS_READ,
	SCANNED_INDEX_MAX
} from './ranking';
import { readings } from './scratch';
import { analyse, surroundingTokens } from './terms';

/**
 * Per message, in {@link TermColumns.stats}: distinct raw tokens of its text, of its surroundings, of its author's
 * name; tokens of its line; where its terms start; who wrote it (its speaker's number).
 */
export const TEXT_LENGTH = 0;
export const AROUND_LENGTH = 1;
export const NAME_LENGTH = 2;
const LINE_TOKENS = 3;
const TERMS_START = 4;
const SPEAKER = 5;
export const STRIDE = 6;

/**
 * One query term's postings in its two fields, as ranges of the query's scratch (see {@link readings}), and how
 * many messages hold it in each.
 */
export interface TermPostings {
	ownStart: number;
	ownEnd: number;
	ownHeld: number;
	nameStart: number;
	nameEnd: number;
	nameHeld: number;
}

/**
 * What an index knows of its messages' words, as integers in typed arrays: per-message figures, and up to
 * {@link SCANNED_INDEX_MAX} messages each message's `(term key, count)` pairs, which a query scans; past it
 * postings by term ({@link PostingBlocks}). The garbage collector sees a few arrays, whatever the archive's size.
 */
export class TermColumns {
	/** Per message, {@link STRIDE} figures (see {@link TEXT_LENGTH}). */
	public stats: Int32Array<ArrayBuffer> = new Int32Array(STRIDE * 4);
	public textTotal = 0;
	public aroundTotal = 0;
	public nameTotal = 0;
	private size = 0;
	/** Below {@link SCANNED_INDEX_MAX}: each message's `(term key, count)` pairs, from its `TERMS_START`. */
	private terms: Int32Array<ArrayBuffer> | null = new Int32Array(32);
	private termsUsed = 0;
	/** Past {@link SCANNED_INDEX_MAX}: postings by term key. */
	private postings: PostingBlocks | null = null;

	public constructor(private readonly scannedUpTo = SCANNED_INDEX_MAX) {}

	/** What the columns hold in memory, in bytes. */
	public get bytes(): number {
		return this.stats.byteLength + (this.terms?.byteLength ?? 0) + (this.postings?.bytes ?? 0);
	}

	/**
	 * Takes the message at place `at` (the next one), written by speaker number `speaker`. `recent` holds the raw
	 * tokens of the messages before it whose surroundings are not complete yet; this one's are added.
	 */
	public append(at: number, message: StoredMessage, speaker: number, recent: Set<string>[]): void {
		this.size = at + 1;
		this.stats = grown(this.stats, STRIDE * (at + 1));
		const { stats } = this;
		const base = STRIDE * at;
		stats[base + SPEAKER] = speaker;
		// Counted now, while the message is indexed, rather than inside a reply when it first turns up as a hit.
		stats[base + LINE_TOKENS] = uncachedTokenCount(messageLine(message));

		const { tokens, terms } = analyse(message.text, 0);
		const name = message.authorName ? analyse(message.authorName, 1) : null;
		stats[base + TEXT_LENGTH] = tokens.size;
		this.textTotal += tokens.size;
		stats[base + NAME_LENGTH] = name?.tokens.size ?? 0;
		this.nameTotal += name?.tokens.size ?? 0;
		if (this.terms) {
			stats[base + TERMS_START] = this.termsUsed;
			this.terms = grown(this.terms, this.termsUsed + 2 * (terms.size + (name?.terms.size ?? 0)));
			for (const [key, count] of terms) this.storeTerm(key, count);
			if (name) for (const [key, count] of name.terms) this.storeTerm(key, count);
		} else {
			for (const [key, count] of terms) this.postings!.add(key, at, count);
			if (name) for (const [key, count] of name.terms) this.postings!.add(key, at, count);
		}

		// The surroundings of this message and of the few before it, which now have it as a neighbour.
		recent.push(tokens);
		if (recent.length > 2 * AROUND_WINDOW + 1) recent.shift();
		for (let other = Math.max(0, at - AROUND_WINDOW); other <= at; other++) {
			const slot = STRIDE * other + AROUND_LENGTH;
			this.aroundTotal -= stats[slot]!;
			stats[slot] = surroundingTokens(recent, other, at);
			this.aroundTotal += stats[slot]!;
		}
		if (this.terms && this.size > this.scannedUpTo) this.invert();
	}

	/** Tokens of the line of the message at `at`. */
	public lineTokensAt(at: number): number {
		return this.stats[STRIDE * at + LINE_TOKENS]!;
	}

	/** The speaker's number of the message at `at`. */
	public speakerAt(at: number): number {
		return this.stats[STRIDE * at + SPEAKER]!;
	}

	/**
	 * The query's distinctive terms that the index knows (see {@link COMMON_TERM_SHARE}), with their postings copied
	 * to the query's scratch: the newest {@link MAX_POSTINGS_READ} of each.
	 */
	public postingsOf(keys: readonly number[]): TermPostings[] {
		const common = Math.min(COMMON_TERM_MAX_DOCS, Math.max(COMMON_TERM_MIN_DOCS, this.size * COMMON_TERM_SHARE));
		if (!this.postings) return distinctiveTerms(this.scannedTerms(keys), common);
		const { postings } = this;
		// Counted first, so that the postings of a common term are never copied.
		const chosen = distinctiveTerms(
			keys.map((key) => ({ key, ownHeld: postings.held(key), nameHeld: postings.held(key | 1) })),
			common
		);
		let cursor = 0;
		return chosen.map(({ key, ownHeld, nameHeld }) => {
			const ownStart = cursor;
			cursor = postings.read(key, MAX_POSTINGS_READ, cursor);
			const nameStart = cursor;
			cursor = nameHeld > 0 ? postings.read(key | 1, MAX_POSTINGS_READ, cursor) : cursor;
			return { ownStart, ownEnd: nameStart, ownHeld, nameStart, nameEnd: cursor, nameHeld };
		});
	}

	private storeTerm(key: number, count: number): void {
		this.terms![this.termsUsed++] = key;
		this.terms![this.termsUsed++] = count;
	}

	/** Past {@link SCANNED_INDEX_MAX}: postings by term replace the scanned terms. */
	private invert(): void {
		const postings = new PostingBlocks();
		for (let at = 0; at < this.size; at++) {
			const end = at + 1 < this.size ? this.stats[STRIDE * (at + 1) + TERMS_START]! : this.termsUsed;
			for (let pair = this.stats[STRIDE * at + TERMS_START]!; pair < end; pair += 2)
				postings.add(this.terms![pair]!, at, this.terms![pair + 1]!);
		}
		this.postings = postings;
		this.terms = null;
		this.termsUsed = 0;
	}

	/** Every query term's postings, from a scan of each message's terms (below {@link SCANNED_INDEX_MAX}). */
	private scannedTerms(keys: readonly number[]): TermPostings[] {
		const found = keys.map(() => ({ own: [] as number[], name: [] as number[] }));
		const slots = new Map<number, number>();
		keys.forEach((key, slot) => {
			slots.set(key, slot);
			slots.set(key | 1, slot);
		});
		const terms = this.terms!;
		const { stats } = this;
		for (let at = 0; at < this.size; at++) {
			const end = at + 1 < this.size ? stats[STRIDE * (at + 1) + TERMS_START]! : this.termsUsed;
			for (let pair = stats[STRIDE * at + TERMS_START]!; pair < end; pair += 2) {
				const key = terms[pair]!;
				const slot = slots.get(key);
				if (slot === undefined) continue;
				((key & 1) === 0 ? found[slot]!.own : found[slot]!.name).push(at, terms[pair + 1]!);
			}
		}
		// As from postings, a term's newest MAX_POSTINGS_READ only.
		let cursor = 0;
		const copy = (list: number[]) => {
			const kept = list.length > 2 * MAX_POSTINGS_READ ? list.slice(-2 * MAX_POSTINGS_READ) : list;
			readings(cursor + kept.length).set(kept, cursor);
			return (cursor += kept.length);
		};
		return found.map(({ own, name }) => {
			const ownStart = cursor;
			const ownEnd = copy(own);
			const nameStart = cursor;
			return { ownStart, ownEnd, ownHeld: own.length / 2, nameStart, nameEnd: copy(name), nameHeld: name.length / 2 };
		});
	}
}
