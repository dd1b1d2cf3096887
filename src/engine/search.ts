import { LRUCache } from 'lru-cache';
import { eng as englishStopWords } from 'stopword';
import stem from 'wink-porter2-stemmer';
import { messageTokens } from './budget';
import type { StoredMessage } from './types';

const STOP_WORDS = new Set([...englishStopWords, 'did', 'does', 'do', 'what', 'when', 'where', 'who', 'which', 'how', 'why', 'yes', 'ok', 'okay', 'lol']);

/** Longer runs of letters are no word (a hash, a key mash) and would cost the stemmer quadratic time. */
const MAX_TERM_CHARS = 64;

// A chat's vocabulary is small next to its messages: each word is stemmed once.
const stems = new LRUCache<string, string | 0>({ max: 100_000 });

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

/** BM25+ (Lv and Zhai), with MiniSearch's defaults. */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

/** A BM25 hit: the message and its score. */
export interface SearchHit {
	message: StoredMessage;
	score: number;
}

/**
 * The messages holding one term: their places in the archive and how often each holds it, interleaved
 * (`[place, count, place, count, …]`). A plain array of small integers: a typed array costs some 200
 * bytes of its own, and a scope's index holds hundreds of short postings.
 */
type Postings = number[];

/** The distinct raw tokens of a text (what BM25 takes as its length) and its stemmed terms with their counts. */
function analyse(text: string): { tokens: Set<string>; terms: Map<string, number> } {
	const split = tokenize(text);
	const terms = new Map<string, number>();
	for (const token of split) {
		const term = processTerm(token);
		if (term) terms.set(term, (terms.get(term) ?? 0) + 1);
	}
	return { tokens: new Set(split), terms };
}

function idf(total: number, holding: number): number {
	return Math.log(1 + (total - holding + 0.5) / (holding + 0.5));
}

function bm25(count: number, length: number, averageLength: number): number {
	return DELTA + (count * (K1 + 1)) / (count + K1 * (1 - B + (B * length) / averageLength));
}

/**
 * A BM25 index over one scope's archive, appended to in place as turns arrive. Each message is
 * scored on three fields: its own words, the words of the {@link AROUND_WINDOW} messages on each side
 * (in a chat, the answer to a question often sits one line away from the words that name its topic),
 * and its author's name. The surroundings are not indexed twice: a query derives them from the
 * postings of the words themselves, so the index holds each word of each message once.
 *
 * A query touches only the postings of its distinctive terms (see {@link COMMON_TERM_SHARE}), at most
 * {@link MAX_POSTINGS_READ} of each, and scores them in scratch arrays shared by every index.
 */
export class ScopeIndex {
	private messages: StoredMessage[] = [];
	private readonly place = new Map<string, number>();
	private readonly terms = new Map<string, Postings>();
	private readonly names = new Map<string, Postings>();
	/** Distinct raw tokens of each message's text, of its surroundings, of its author's name. */
	private textLength: number[] = [];
	private aroundLength: number[] = [];
	private nameLength: number[] = [];
	private textTotal = 0;
	private aroundTotal = 0;
	private nameTotal = 0;
	/** Raw tokens of the newest messages, whose surroundings are not complete yet. */
	private readonly recentTokens: Set<string>[] = [];

	/** Messages in the index. */
	public get size(): number {
		return this.messages.length;
	}

	/** Adds messages in archive order; a message already indexed is skipped. */
	public add(messages: readonly StoredMessage[]): void {
		for (const message of messages) {
			if (this.place.has(message.id)) continue;
			this.append(message);
		}
	}

	private append(message: StoredMessage): void {
		const at = this.messages.length;
		// Counted now, while the message is indexed, rather than inside a reply when it first turns up as a hit.
		messageTokens(message);
		this.messages.push(message);
		this.place.set(message.id, at);
		const { tokens, terms } = analyse(message.text);
		for (const [term, count] of terms) this.postings(this.terms, term).push(at, count);
		this.textLength[at] = tokens.size;
		this.textTotal += tokens.size;
		const name = message.authorName ? analyse(message.authorName) : null;
		if (name) for (const [term, count] of name.terms) this.postings(this.names, term).push(at, count);
		this.nameLength[at] = name?.tokens.size ?? 0;
		this.nameTotal += this.nameLength[at]!;

		// The surroundings of this message and of the few before it, which now have it as a neighbour.
		this.recentTokens.push(tokens);
		if (this.recentTokens.length > 2 * AROUND_WINDOW + 1) this.recentTokens.shift();
		for (let other = Math.max(0, at - AROUND_WINDOW); other <= at; other++) {
			this.aroundTotal -= this.aroundLength[other] ?? 0;
			this.aroundLength[other] = this.surroundingTokens(other, at);
			this.aroundTotal += this.aroundLength[other]!;
		}
	}

	/** Distinct raw tokens of the messages around `at`, among those up to `newest`. */
	private surroundingTokens(at: number, newest: number): number {
		const union = new Set<string>();
		for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(newest, at + AROUND_WINDOW); other++) {
			if (other === at) continue;
			const tokens = this.recentTokens[this.recentTokens.length - 1 - (newest - other)];
			if (tokens) for (const token of tokens) union.add(token);
		}
		return union.size;
	}

	private postings(map: Map<string, Postings>, term: string): Postings {
		let postings = map.get(term);
		if (!postings) map.set(term, (postings = []));
		return postings;
	}

	/**
	 * Removes messages. The index is rebuilt from what is left, so no removed word survives in a
	 * neighbour's surroundings or in the term counts (removal is rare: an erasure or a sweep).
	 */
	public remove(ids: Iterable<string>): void {
		const gone = new Set([...ids].filter((id) => this.place.has(id)));
		if (gone.size === 0) return;
		const kept = this.messages.filter((message) => !gone.has(message.id));
		this.messages = [];
		this.place.clear();
		this.terms.clear();
		this.names.clear();
		this.recentTokens.length = 0;
		this.textLength = [];
		this.aroundLength = [];
		this.nameLength = [];
		this.textTotal = this.aroundTotal = this.nameTotal = 0;
		this.add(kept);
	}

	/** The message `offset` places after (or, negative, before) `id` in the archive. */
	public neighbour(id: string, offset: number): StoredMessage | undefined {
		const at = this.place.get(id);
		return at === undefined ? undefined : this.messages[at + offset];
	}

	public get(id: string): StoredMessage | undefined {
		const at = this.place.get(id);
		return at === undefined ? undefined : this.messages[at];
	}

	public all(): IterableIterator<StoredMessage> {
		return this.messages.values();
	}

	/**
	 * Hits for `query`, best first, among messages written at or after `since` (older ones, past retention
	 * and not swept yet, take no place among the `limit`). Terms most messages share are left out (see
	 * {@link COMMON_TERM_SHARE}).
	 */
	public search(query: string, limit = 200, since = Number.NEGATIVE_INFINITY): SearchHit[] {
		const total = this.messages.length;
		const terms = this.queryTerms(query);
		if (terms.length === 0 || total === 0) return [];
		const { scores, matched, lastTerm } = scratch(total);
		const touched: number[] = [];
		const textAverage = this.textTotal / total;
		const aroundAverage = this.aroundTotal / total || 1;
		const nameAverage = this.nameTotal / total || 1;
		let term = 0;
		/** Adds one field's score of the current term to a message. */
		const score = (at: number, value: number) => {
			if (matched[at] === 0) touched.push(at);
			scores[at] = scores[at]! + value;
			if (lastTerm[at] !== term) {
				lastTerm[at] = term;
				matched[at] = matched[at]! + 1;
			}
		};
		for (const word of terms) {
			term++;
			const own = this.terms.get(word);
			if (own) {
				const weight = idf(total, own.length / 2);
				for (let index = newest(own); index < own.length; index += 2) {
					const at = own[index]!;
					score(at, weight * bm25(own[index + 1]!, this.textLength[at]!, textAverage));
				}
				this.scoreSurroundings(own, total, aroundAverage, score);
			}
			const name = this.names.get(word);
			if (name) {
				const weight = AUTHOR_BOOST * idf(total, name.length / 2);
				for (let index = newest(name); index < name.length; index += 2) {
					const at = name[index]!;
					score(at, weight * bm25(name[index + 1]!, this.nameLength[at]!, nameAverage));
				}
			}
		}
		// As MiniSearch ranks: a message matching more of the query's terms counts that many times.
		const final = new Float64Array(touched.length);
		touched.forEach((at, index) => (final[index] = this.messages[at]!.ts >= since ? scores[at]! * matched[at]! : Number.NEGATIVE_INFINITY));
		for (const at of touched) {
			scores[at] = 0;
			matched[at] = 0;
			lastTerm[at] = 0;
		}
		const floor = touched.length > limit ? kthLargest(final.slice(), limit) : Number.NEGATIVE_INFINITY;
		const ranked: { at: number; score: number }[] = [];
		touched.forEach((at, index) => final[index]! >= floor && final[index] !== Number.NEGATIVE_INFINITY && ranked.push({ at, score: final[index]! }));
		ranked.sort((a, b) => b.score - a.score || a.at - b.at);
		return ranked.slice(0, limit).map(({ at, score: value }) => ({ message: this.messages[at]!, score: value }));
	}

	/**
	 * The surroundings field of one term: each message within {@link AROUND_WINDOW} of a message holding
	 * the term counts its occurrences there.
	 */
	private scoreSurroundings(postings: Postings, total: number, averageLength: number, add: (at: number, value: number) => void): void {
		const { around } = scratch(total);
		const near: number[] = [];
		for (let index = newest(postings); index < postings.length; index += 2) {
			const at = postings[index]!;
			const count = postings[index + 1]!;
			for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(total - 1, at + AROUND_WINDOW); other++) {
				if (other === at) continue;
				if (around[other] === 0) near.push(other);
				around[other] = around[other]! + count;
			}
		}
		const weight = AROUND_BOOST * idf(total, near.length);
		for (const at of near) {
			add(at, weight * bm25(around[at]!, this.aroundLength[at]!, averageLength));
			around[at] = 0;
		}
	}

	private queryTerms(query: string): string[] {
		const known = [...analyse(query).terms.keys()].map((term) => ({ term, count: (this.terms.get(term)?.length ?? 0) / 2 })).filter(({ count }) => count > 0);
		const common = Math.min(COMMON_TERM_MAX_DOCS, Math.max(COMMON_TERM_MIN_DOCS, this.messages.length * COMMON_TERM_SHARE));
		const distinctive = known.filter(({ count }) => count <= common);
		const chosen = distinctive.length > 0 ? distinctive : known.sort((a, b) => a.count - b.count).slice(0, RAREST_KEPT);
		return chosen.map(({ term }) => term);
	}
}

/** Where a query starts reading `postings`: at its {@link MAX_POSTINGS_READ} newest messages. */
function newest(postings: Postings): number {
	return Math.max(0, postings.length - 2 * MAX_POSTINGS_READ);
}

/**
 * Scratch space of a query, one slot per message, shared by every index of the process (a search runs
 * to its end without yielding): the slots are left at zero after each query.
 */
const shared = { scores: new Float64Array(0), matched: new Uint8Array(0), lastTerm: new Int32Array(0), around: new Float64Array(0) };

function scratch(size: number): typeof shared {
	if (shared.scores.length < size) {
		const capacity = Math.max(size, shared.scores.length * 2, 1024);
		shared.scores = new Float64Array(capacity);
		shared.matched = new Uint8Array(capacity);
		shared.lastTerm = new Int32Array(capacity);
		shared.around = new Float64Array(capacity);
	}
	return shared;
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
