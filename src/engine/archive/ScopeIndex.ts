import { LRUCache } from 'lru-cache';
import { eng as englishStopWords } from 'stopword';
import stem from 'wink-porter2-stemmer';
import { messageLine } from '../format/lines';
import { fnv1a } from '../capture/cleanText';
import { uncachedTokenCount } from '../format/tokens';
import type { StoredMessage } from '../schemas/types';

const STOP_WORDS = new Set([
	...englishStopWords,
	'did',
	'does',
	'do',
	'what',
	'when',
	'where',
	'who',
	'which',
	'how',
	'why',
	'yes',
	'ok',
	'okay',
	'lol'
]);

/** Longer runs of letters are no word (a hash, a key mash) and would cost the stemmer quadratic time. */
const MAX_TERM_CHARS = 64;

// A chat's vocabulary is small next to its messages: each word is stemmed once.
const stems = new LRUCache<string, string | 0>({ max: 50_000 });

/** Lower-cases, drops stop words and stems, so "adopted" finds "adopt" and "the" finds nothing. */
export function processTerm(term: string): string | null {
	const lower = term.toLowerCase();
	if (lower.length < 2 || lower.length > MAX_TERM_CHARS || STOP_WORDS.has(lower)) return null;
	const cached = stems.get(lower);
	if (cached !== undefined) return cached === 0 ? null : cached;
	const stemmed = stem(lower);
	stems.set(lower, stemmed || 0);
	return stemmed || null;
}

/**
 * The index's name for a term: a 32-bit hash (FNV-1a) of its stem, even for a message's words and odd for
 * its author's name. An index stores no strings of its own; two terms sharing a hash (about one chance in
 * a hundred thousand for a term of a 50,000-term archive) would only rank each other's messages a little.
 */
function termKey(term: string): number {
	return fnv1a(term) & ~1;
}

/** Splits at white space and punctuation, as MiniSearch's default tokenizer does. */
const SEPARATORS = /[\n\r\p{Z}\p{P}]+/u;

function tokenize(text: string): string[] {
	return text.split(SEPARATORS).filter((token) => token.length > 0);
}

/** How many messages on each side count as a message's surroundings. */
export const AROUND_WINDOW = 2;
/** Weight of the surroundings against the message's own words. */
export const AROUND_BOOST = 0.5;
/** Weight of the author's name. */
const AUTHOR_BOOST = 0.3;

/**
 * Query terms found in more than this share of the messages (and at least {@link COMMON_TERM_MIN_DOCS})
 * are left out of the search: they rank nothing apart and would make a query read most of the index.
 */
export const COMMON_TERM_SHARE = 0.05;
export const COMMON_TERM_MIN_DOCS = 40;
/** ...and whatever the archive's size, a term in more messages than this is common: a query's cost stays flat as the archive grows. */
export const COMMON_TERM_MAX_DOCS = 1000;
/** When every query term is common, the rarest ones still search... */
const RAREST_KEPT = 2;
/** ...through their newest messages only: a query reads at most this many postings per term, whatever the archive's size. */
export const MAX_POSTINGS_READ = 1000;

/**
 * Up to this many messages an index keeps each message's terms in one array and a query scans them all
 * (a few thousand integers); past it, it keeps postings by term. Most channels never get there, and their
 * index costs a few hundred bytes beyond the messages themselves.
 */
export const SCANNED_INDEX_MAX = 256;

/** BM25+ (Lv and Zhai), with MiniSearch's defaults. */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

/** A BM25 hit: the message and its score. */
export interface SearchHit {
	message: StoredMessage;
	score: number;
}

/** A BM25 hit as its place in the index (see {@link ScopeIndex.rank}). */
export interface PlaceHit {
	at: number;
	score: number;
}

/** The distinct raw tokens of a text (what BM25 takes as its length) and its term keys with their counts. */
function analyse(text: string, field: 0 | 1): { tokens: Set<string>; terms: Map<number, number> } {
	const split = tokenize(text);
	return { tokens: new Set(split), terms: termCounts(split, field) };
}

/** The term keys of raw tokens, with how often each occurs. */
function termCounts(tokens: readonly string[], field: 0 | 1): Map<number, number> {
	const terms = new Map<number, number>();
	for (const token of tokens) {
		const term = processTerm(token);
		if (term === null) continue;
		const key = termKey(term) | field;
		terms.set(key, (terms.get(key) ?? 0) + 1);
	}
	return terms;
}

function idf(total: number, holding: number): number {
	return Math.log(1 + (total - holding + 0.5) / (holding + 0.5));
}

function bm25(count: number, length: number, averageLength: number): number {
	return DELTA + (count * (K1 + 1)) / (count + K1 * (1 - B + (B * length) / averageLength));
}

/**
 * Per message, in {@link ScopeIndex}'s `stats`: distinct raw tokens of its text, of its surroundings, of its author's
 * name; tokens of its line; where its terms start; who wrote it (see {@link Speaker}).
 */
const TEXT_LENGTH = 0;
const AROUND_LENGTH = 1;
const NAME_LENGTH = 2;
const LINE_TOKENS = 3;
const TERMS_START = 4;
const SPEAKER = 5;
const STRIDE = 6;

/** What a message's id and text strings cost beyond their characters, with their slots in the index. */
const MESSAGE_BYTES = 72;

/** A message's fields besides its id, text and time: few in a channel, so kept once each. */
type Speaker = Pick<StoredMessage, 'role' | 'authorId' | 'authorName' | 'personaId'>;

/** Up to this many speakers an index finds a message's by a scan, past it through a map. */
const SCANNED_SPEAKERS = 32;

function grown(array: Int32Array<ArrayBuffer>, needed: number): Int32Array<ArrayBuffer> {
	if (needed <= array.length) return array;
	const next = new Int32Array(Math.max(needed, Math.ceil(array.length * 1.5)));
	next.set(array);
	return next;
}

/**
 * Postings by term, in one integer array: each term owns a chain of blocks, newest last, so appending
 * never moves a term's older postings and a query walks back from the newest. A block is
 * `[previous block, capacity, used, postings of the term so far]` then `capacity` pairs `(place, count)`.
 * The garbage collector sees one array, whatever the archive's size.
 */
class PostingBlocks {
	private data: Int32Array<ArrayBuffer> = new Int32Array(4096);
	private used = 0;
	private readonly newest = new Map<number, number>();

	public get bytes(): number {
		return this.data.byteLength + this.newest.size * 40;
	}

	public add(key: number, at: number, count: number): void {
		let block = this.newest.get(key);
		if (block === undefined || this.data[block + 2] === this.data[block + 1]) {
			const capacity = block === undefined ? 1 : Math.min(2 * this.data[block + 1]!, 256);
			const held = block === undefined ? 0 : this.data[block + 3]!;
			const start = this.used;
			this.used += 4 + 2 * capacity;
			this.data = grown(this.data, this.used);
			this.data[start] = block ?? -1;
			this.data[start + 1] = capacity;
			this.data[start + 2] = 0;
			this.data[start + 3] = held;
			this.newest.set(key, start);
			block = start;
		}
		const data = this.data;
		const filled = data[block + 2]!;
		data[block + 4 + 2 * filled] = at;
		data[block + 5 + 2 * filled] = count;
		data[block + 2] = filled + 1;
		data[block + 3] = data[block + 3]! + 1;
	}

	/** How many messages hold the term. */
	public held(key: number): number {
		const block = this.newest.get(key);
		return block === undefined ? 0 : this.data[block + 3]!;
	}

	/** Copies the term's newest `limit` postings, as `[place, count, …]` newest first, into the query's scratch from `start`; returns where they end. */
	public read(key: number, limit: number, start: number): number {
		const data = this.data;
		const end = start + 2 * Math.min(limit, this.held(key));
		const out = readings(end);
		let at = start;
		let block = this.newest.get(key) ?? -1;
		while (block >= 0 && at < end) {
			for (let pair = data[block + 2]! - 1; pair >= 0 && at < end; pair--) {
				out[at++] = data[block + 4 + 2 * pair]!;
				out[at++] = data[block + 5 + 2 * pair]!;
			}
			block = data[block]!;
		}
		return at;
	}
}

/**
 * One query term's postings in its two fields, as ranges of the query's scratch (see {@link readings}), and how
 * many messages hold it in each.
 */
interface TermPostings {
	ownStart: number;
	ownEnd: number;
	ownHeld: number;
	nameStart: number;
	nameEnd: number;
	nameHeld: number;
}

/**
 * A BM25 index over one scope's archive, appended to in place as turns arrive. Each message is
 * scored on three fields: its own words, the words of the {@link AROUND_WINDOW} messages on each side
 * (in a chat, the answer to a question often sits one line away from the words that name its topic),
 * and its author's name. The surroundings are not indexed twice: a query derives them from the
 * postings of the words themselves, so the index holds each word of each message once.
 *
 * The index keeps no message objects: each message's id and text, its time and its speaker in columns, from
 * which the messages a query returns are made. Its terms are integers, in typed arrays: up to {@link SCANNED_INDEX_MAX} messages
 * each message's term keys, scanned by a query; past it postings by term ({@link PostingBlocks}), of which a
 * query reads the distinctive terms' (see {@link COMMON_TERM_SHARE}), at most {@link MAX_POSTINGS_READ} each.
 * Queries score in scratch arrays shared by every index.
 */
export class ScopeIndex {
	private ids: string[] = [];
	private texts: string[] = [];
	/** A plain array of numbers: for the few messages of most channels, cheaper than a typed array's own objects. */
	private times: number[] = [];
	private speakers: Speaker[] = [];
	/** Past {@link SCANNED_SPEAKERS}: each speaker's number, by {@link speakerKey}. */
	private speakerNumbers: Map<string, number> | null = null;
	/** Past {@link SCANNED_INDEX_MAX}, the places in the order of their ids, for a binary search (below it a scan is as quick). */
	private order: Int32Array<ArrayBuffer> | null = null;
	private stats: Int32Array<ArrayBuffer> = new Int32Array(STRIDE * 4);
	/** Below {@link SCANNED_INDEX_MAX}: each message's `(term key, count)` pairs, from its `TERMS_START`. */
	private terms: Int32Array<ArrayBuffer> | null = new Int32Array(32);
	private termsUsed = 0;
	/** Past {@link SCANNED_INDEX_MAX}: postings by term key. */
	private postings: PostingBlocks | null = null;
	private textTotal = 0;
	private aroundTotal = 0;
	private nameTotal = 0;
	private messageBytes = 0;

	/** `scannedUpTo`: messages up to which queries scan each message's terms (see {@link SCANNED_INDEX_MAX}). */
	public constructor(private readonly scannedUpTo = SCANNED_INDEX_MAX) {}

	/** Messages in the index. */
	public get size(): number {
		return this.ids.length;
	}

	/** What the index holds in memory, in bytes, with its messages' ids and text (measured on chat: it errs high by some 10 %). */
	public get bytes(): number {
		const speakers = this.speakers.length * 120 + (this.speakerNumbers ? this.speakerNumbers.size * 80 : 0);
		// The index's own objects and its arrays' headers (typed arrays cost some 250 bytes each), measured.
		return (
			1_500 +
			this.stats.byteLength +
			(this.terms?.byteLength ?? 0) +
			(this.order?.byteLength ?? 0) +
			(this.postings?.bytes ?? 0) +
			speakers +
			this.messageBytes
		);
	}

	/** Adds messages in archive order; a message already indexed is skipped. */
	public add(messages: readonly StoredMessage[]): void {
		// Raw tokens of the newest messages, whose surroundings are not complete yet.
		const recent = this.texts.slice(-2 * AROUND_WINDOW).map((text) => new Set(tokenize(text)));
		for (const message of messages) {
			if (this.placeOf(message.id) !== undefined) continue;
			this.append(message, recent);
		}
	}

	/** Where message `id` is in the index (from 0, oldest first), if it holds it. */
	public placeOf(id: string): number | undefined {
		if (!this.order) {
			const at = this.ids.lastIndexOf(id);
			return at < 0 ? undefined : at;
		}
		const rank = this.rankOf(id);
		const at = this.order[rank];
		return rank < this.ids.length && this.ids[at!] === id ? at : undefined;
	}

	/** Where `id` is or would go among the ids in order (past {@link SCANNED_INDEX_MAX}). */
	private rankOf(id: string): number {
		const order = this.order!;
		let low = 0;
		let high = this.ids.length;
		while (low < high) {
			const middle = (low + high) >> 1;
			if (compareIds(this.ids[order[middle]!]!, id) < 0) low = middle + 1;
			else high = middle;
		}
		return low;
	}

	/** Files the newest place among the ids in order: at the end for an id above all others, as Discord's are. */
	private fileId(at: number): void {
		const order = (this.order = grown(this.order!, at + 1));
		const id = this.ids[at]!;
		if (at === 0 || compareIds(this.ids[order[at - 1]!]!, id) < 0) {
			order[at] = at;
			return;
		}
		const rank = this.rankOf(id);
		order.copyWithin(rank + 1, rank, at);
		order[rank] = at;
	}

	private append(message: StoredMessage, recent: Set<string>[]): void {
		const at = this.ids.length;
		this.ids.push(message.id);
		this.texts.push(message.text);
		this.times.push(message.ts);
		if (this.order) this.fileId(at);
		this.messageBytes += MESSAGE_BYTES + message.id.length + message.text.length;
		this.stats = grown(this.stats, STRIDE * (at + 1));
		const stats = this.stats;
		const base = STRIDE * at;
		stats[base + SPEAKER] = this.speakerNumber(message);
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
		if (this.terms && this.ids.length > this.scannedUpTo) this.invert();
	}

	private speakerNumber(message: StoredMessage): number {
		const { role, authorId, authorName, personaId } = message;
		if (this.speakerNumbers) {
			const key = speakerKey(message);
			let number = this.speakerNumbers.get(key);
			if (number === undefined) {
				number = this.speakers.push({ role, authorId, authorName, personaId }) - 1;
				this.speakerNumbers.set(key, number);
			}
			return number;
		}
		const found = this.speakers.findIndex(
			(speaker) =>
				speaker.role === role && speaker.authorId === authorId && speaker.authorName === authorName && speaker.personaId === personaId
		);
		if (found >= 0) return found;
		const number = this.speakers.push({ role, authorId, authorName, personaId }) - 1;
		if (this.speakers.length > SCANNED_SPEAKERS) this.speakerNumbers = new Map(this.speakers.map((speaker, at) => [speakerKey(speaker), at]));
		return number;
	}

	/** The message at place `at` (from 0, oldest first), made from the columns. */
	public messageAt(at: number): StoredMessage {
		const { role, authorId, authorName, personaId } = this.speakerAt(at);
		// The fields in the order stored messages have them.
		const message = { id: this.ids[at]!, role } as StoredMessage;
		if (authorId !== undefined) message.authorId = authorId;
		if (authorName !== undefined) message.authorName = authorName;
		message.text = this.texts[at]!;
		message.ts = this.times[at]!;
		if (personaId !== undefined) message.personaId = personaId;
		return message;
	}

	private storeTerm(key: number, count: number): void {
		this.terms![this.termsUsed++] = key;
		this.terms![this.termsUsed++] = count;
	}

	/** Past {@link SCANNED_INDEX_MAX}: postings by term replace the scanned terms, and the ids are put in order. */
	private invert(): void {
		const postings = new PostingBlocks();
		const total = this.ids.length;
		for (let at = 0; at < total; at++) {
			const end = at + 1 < total ? this.stats[STRIDE * (at + 1) + TERMS_START]! : this.termsUsed;
			for (let pair = this.stats[STRIDE * at + TERMS_START]!; pair < end; pair += 2)
				postings.add(this.terms![pair]!, at, this.terms![pair + 1]!);
		}
		this.postings = postings;
		this.terms = null;
		this.termsUsed = 0;
		this.order = Int32Array.from(this.ids.keys()).sort((a, b) => compareIds(this.ids[a]!, this.ids[b]!));
	}

	/**
	 * Removes messages. The index is rebuilt from what is left, so no removed word survives in a
	 * neighbour's surroundings or in the term counts (removal is rare: an erasure or a sweep).
	 */
	public remove(ids: Iterable<string>): void {
		const gone = new Set([...ids].filter((id) => this.placeOf(id) !== undefined));
		if (gone.size === 0) return;
		const kept = [...this.all()].filter((message) => !gone.has(message.id));
		this.ids = [];
		this.texts = [];
		this.times = [];
		this.speakers = [];
		this.speakerNumbers = null;
		this.order = null;
		this.stats = new Int32Array(STRIDE * 4);
		this.terms = new Int32Array(32);
		this.termsUsed = 0;
		this.postings = null;
		this.textTotal = this.aroundTotal = this.nameTotal = this.messageBytes = 0;
		this.add(kept);
	}

	/** The message with id `id`, if the index holds it. */
	public get(id: string): StoredMessage | undefined {
		const at = this.placeOf(id);
		return at === undefined ? undefined : this.messageAt(at);
	}

	// A message's fields by its place, read without making the message: a reply reads them for every hit and its neighbours.

	public idAt(at: number): string {
		return this.ids[at]!;
	}

	public timeAt(at: number): number {
		return this.times[at]!;
	}

	public authorIdAt(at: number): string | undefined {
		return this.speakerAt(at).authorId;
	}

	/** Tokens of the message's line (see {@link messageLine}), counted when the index took it. */
	public lineTokensAt(at: number): number {
		return this.stats[STRIDE * at + LINE_TOKENS]!;
	}

	private speakerAt(at: number): Speaker {
		return this.speakers[this.stats[STRIDE * at + SPEAKER]!]!;
	}

	/** Every message, oldest first. */
	public *all(): IterableIterator<StoredMessage> {
		for (let at = 0; at < this.ids.length; at++) yield this.messageAt(at);
	}

	/**
	 * Hits for `query`, best first, among messages written at or after `since` (older ones, past retention
	 * and not swept yet, take no place among the `limit`). Terms most messages share are left out (see
	 * {@link COMMON_TERM_SHARE}).
	 */
	public search(query: string, limit = 200, since = Number.NEGATIVE_INFINITY): SearchHit[] {
		return this.rank(query, limit, since).map(({ at, score }) => ({ message: this.messageAt(at), score }));
	}

	/** {@link search}'s hits as places, which a caller reads field by field: no message is made. */
	public rank(query: string, limit = 200, since = Number.NEGATIVE_INFINITY): PlaceHit[] {
		const total = this.ids.length;
		if (total === 0) return [];
		const keys = [...termCounts(tokenize(query), 0).keys()];
		if (keys.length === 0) return [];
		const terms = this.chosenTerms(keys);
		if (terms.length === 0) return [];
		const { scores, matched, lastTerm, touched } = scratch(total);
		const postings = readings(0);
		const stats = this.stats;
		let touchedCount = 0;
		const textAverage = this.textTotal / total;
		const aroundAverage = this.aroundTotal / total || 1;
		const nameAverage = this.nameTotal / total || 1;
		let term = 0;
		/** Adds one field's score of the current term to a message. */
		const score = (at: number, value: number) => {
			if (matched[at] === 0) touched[touchedCount++] = at;
			scores[at] = scores[at]! + value;
			if (lastTerm[at] !== term) {
				lastTerm[at] = term;
				matched[at] = matched[at]! + 1;
			}
		};
		for (const { ownStart, ownEnd, ownHeld, nameStart, nameEnd, nameHeld } of terms) {
			term++;
			if (ownHeld > 0) {
				const weight = idf(total, ownHeld);
				for (let index = ownStart; index < ownEnd; index += 2) {
					const at = postings[index]!;
					score(at, weight * bm25(postings[index + 1]!, stats[STRIDE * at + TEXT_LENGTH]!, textAverage));
				}
				this.scoreSurroundings(postings, ownStart, ownEnd, total, aroundAverage, score);
			}
			if (nameHeld > 0) {
				const weight = AUTHOR_BOOST * idf(total, nameHeld);
				for (let index = nameStart; index < nameEnd; index += 2) {
					const at = postings[index]!;
					score(at, weight * bm25(postings[index + 1]!, stats[STRIDE * at + NAME_LENGTH]!, nameAverage));
				}
			}
		}
		// As MiniSearch ranks: a message matching more of the query's terms counts that many times.
		const { finals, picked } = scratch(total);
		for (let index = 0; index < touchedCount; index++) {
			const at = touched[index]!;
			finals[index] = this.times[at]! >= since ? scores[at]! * matched[at]! : Number.NEGATIVE_INFINITY;
			scores[at] = 0;
			matched[at] = 0;
			lastTerm[at] = 0;
		}
		let floor = Number.NEGATIVE_INFINITY;
		if (touchedCount > limit) {
			picked.set(finals.subarray(0, touchedCount));
			floor = kthLargest(picked.subarray(0, touchedCount), limit);
		}
		const ranked: PlaceHit[] = [];
		for (let index = 0; index < touchedCount; index++) {
			const value = finals[index]!;
			if (value >= floor && value !== Number.NEGATIVE_INFINITY) ranked.push({ at: touched[index]!, score: value });
		}
		// Compared, not subtracted: a difference of scores is a new heap number for every comparison.
		ranked.sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : a.at - b.at));
		if (ranked.length > limit) ranked.length = limit;
		return ranked;
	}

	/**
	 * The surroundings field of one term: each message within {@link AROUND_WINDOW} of a message holding
	 * the term counts its occurrences there.
	 */
	private scoreSurroundings(
		postings: Int32Array,
		start: number,
		end: number,
		total: number,
		averageLength: number,
		add: (at: number, value: number) => void
	): void {
		const { around, near } = scratch(total);
		let nearCount = 0;
		for (let index = start; index < end; index += 2) {
			const at = postings[index]!;
			const count = postings[index + 1]!;
			for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(total - 1, at + AROUND_WINDOW); other++) {
				if (other === at) continue;
				if (around[other] === 0) near[nearCount++] = other;
				around[other] = around[other]! + count;
			}
		}
		const weight = AROUND_BOOST * idf(total, nearCount);
		for (let index = 0; index < nearCount; index++) {
			const at = near[index]!;
			add(at, weight * bm25(around[at]!, this.stats[STRIDE * at + AROUND_LENGTH]!, averageLength));
			around[at] = 0;
		}
	}

	/**
	 * The query's distinctive terms that the index knows (see {@link COMMON_TERM_SHARE}), with their postings copied
	 * to the query's scratch: the newest {@link MAX_POSTINGS_READ} of each.
	 */
	private chosenTerms(keys: readonly number[]): TermPostings[] {
		const common = Math.min(COMMON_TERM_MAX_DOCS, Math.max(COMMON_TERM_MIN_DOCS, this.ids.length * COMMON_TERM_SHARE));
		if (!this.postings) return distinctiveTerms(this.scannedTerms(keys), common);
		const postings = this.postings;
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

	/** Every query term's postings, from a scan of each message's terms (below {@link SCANNED_INDEX_MAX}). */
	private scannedTerms(keys: readonly number[]): TermPostings[] {
		const found = keys.map(() => ({ own: [] as number[], name: [] as number[] }));
		const slots = new Map<number, number>();
		keys.forEach((key, slot) => {
			slots.set(key, slot);
			slots.set(key | 1, slot);
		});
		const terms = this.terms!;
		const stats = this.stats;
		const total = this.ids.length;
		for (let at = 0; at < total; at++) {
			const end = at + 1 < total ? stats[STRIDE * (at + 1) + TERMS_START]! : this.termsUsed;
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

/** The terms held by few enough messages; when there are none, the {@link RAREST_KEPT} rarest held by any. */
function distinctiveTerms<T extends { ownHeld: number }>(terms: readonly T[], common: number): T[] {
	const known = terms.filter((term) => term.ownHeld > 0);
	const distinctive = known.filter((term) => term.ownHeld <= common);
	return distinctive.length > 0 ? distinctive : known.sort((a, b) => a.ownHeld - b.ownHeld).slice(0, RAREST_KEPT);
}

/** A total order of message ids that puts Discord's in their numeric order (a longer one is larger). */
function compareIds(a: string, b: string): number {
	return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function speakerKey({ role, authorId, authorName, personaId }: Speaker): string {
	return JSON.stringify([role, authorId ?? null, authorName ?? null, personaId ?? null]);
}

/** Distinct raw tokens of the messages around `at` (the newest of `recent` being `newest`), among those up to `newest`. */
function surroundingTokens(recent: readonly Set<string>[], at: number, newest: number): number {
	const union = new Set<string>();
	for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(newest, at + AROUND_WINDOW); other++) {
		if (other === at) continue;
		const tokens = recent[recent.length - 1 - (newest - other)];
		if (tokens) for (const token of tokens) union.add(token);
	}
	return union.size;
}

/**
 * Scratch space of a query, one slot per message, shared by every index of the process (a search runs
 * to its end without yielding): the slots are left at zero after each query.
 */
const shared = {
	scores: new Float64Array(0),
	matched: new Uint8Array(0),
	lastTerm: new Int32Array(0),
	around: new Float64Array(0),
	/** The messages a query touched, the neighbours of one term's messages, their final scores and a copy to select from. */
	touched: new Int32Array(0),
	near: new Int32Array(0),
	finals: new Float64Array(0),
	picked: new Float64Array(0)
};

function scratch(size: number): typeof shared {
	if (shared.scores.length < size) {
		const capacity = Math.max(size, shared.scores.length * 2, 1024);
		shared.scores = new Float64Array(capacity);
		shared.matched = new Uint8Array(capacity);
		shared.lastTerm = new Int32Array(capacity);
		shared.around = new Float64Array(capacity);
		shared.touched = new Int32Array(capacity);
		shared.near = new Int32Array(capacity);
		shared.finals = new Float64Array(capacity);
		shared.picked = new Float64Array(capacity);
	}
	return shared;
}

/** The postings a query reads, copied from the index: at least `size` long (a query fills it before it scores). */
let postingsRead = new Int32Array(4096);

function readings(size: number): Int32Array {
	if (postingsRead.length < size) {
		const grownTo = new Int32Array(Math.max(size, postingsRead.length * 2));
		grownTo.set(postingsRead);
		postingsRead = grownTo;
	}
	return postingsRead;
}

/** The `k`-th largest of `values` (which it reorders), by quickselect. */
function kthLargest(values: Float64Array, k: number): number {
	let low = 0;
	let high = values.length - 1;
	const target = k - 1;
	while (low < high) {
		const pivot = values[(low + high) >> 1]!;
		let left = low;
		let right = high;
		while (left <= right) {
			while (values[left]! > pivot) left++;
			while (values[right]! < pivot) right--;
			if (left <= right) {
				const swap = values[left]!;
				values[left++] = values[right]!;
				values[right--] = swap;
			}
		}
		if (target <= right) high = right;
		else if (target >= left) low = left;
		else return values[target]!;
	}
	return values[target]!;
}
