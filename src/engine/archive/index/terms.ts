import { LRUCache } from 'lru-cache';
import { eng as englishStopWords } from 'stopword';
import stem from 'wink-porter2-stemmer';
import { fnv1a } from '../../format/fnv1a';
import { AROUND_WINDOW } from './ranking';

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
export function termKey(term: string): number {
	return fnv1a(term) & ~1;
}

/** Splits at white space and punctuation, as MiniSearch's default tokenizer does. */
const SEPARATORS = /[\n\r\p{Z}\p{P}]+/u;
/** The first separator at or after `lastIndex`: where a piece of a text may end without cutting a word. */
const NEXT_SEPARATOR = /[\n\r\p{Z}\p{P}]/gu;

/** A text's raw tokens. */
export function tokenize(text: string): string[] {
	return text.split(SEPARATORS).filter((token) => token.length > 0);
}

/**
 * A text's distinct raw tokens (what BM25 takes as its length) and its term keys with their counts, read a piece at a
 * time: 4,000 characters of words no message held before take some 5 ms to stem, so a long message is read over several
 * steps of indexing, each of which yields to the event loop (see ScopeIndex.add).
 */
export class TextAnalysis {
	public readonly tokens = new Set<string>();
	public readonly terms = new Map<number, number>();
	private read = 0;

	public constructor(
		public readonly text: string,
		private readonly field: 0 | 1
	) {}

	public get done(): boolean {
		return this.read >= this.text.length;
	}

	/** Reads some `chars` more characters, on to the end of the word they end in; returns how many it read. */
	public advance(chars: number): number {
		const { text, read } = this;
		let end = text.length;
		if (read + chars < end) {
			NEXT_SEPARATOR.lastIndex = read + chars;
			end = NEXT_SEPARATOR.exec(text)?.index ?? end;
		}
		const tokens = tokenize(text.slice(read, end));
		for (const token of tokens) this.tokens.add(token);
		countTerms(tokens, this.field, this.terms);
		this.read = end;
		return end - read;
	}
}

/** A whole text's analysis (see {@link TextAnalysis}). */
export function analyse(text: string, field: 0 | 1): TextAnalysis {
	const analysis = new TextAnalysis(text, field);
	analysis.advance(text.length);
	return analysis;
}

/** The term keys of raw tokens, with how often each occurs. */
export function termCounts(tokens: readonly string[], field: 0 | 1): Map<number, number> {
	return countTerms(tokens, field, new Map());
}

function countTerms(tokens: readonly string[], field: 0 | 1, terms: Map<number, number>): Map<number, number> {
	for (const token of tokens) {
		const term = processTerm(token);
		if (term === null) continue;
		const key = termKey(term) | field;
		terms.set(key, (terms.get(key) ?? 0) + 1);
	}
	return terms;
}

/**
 * The words two short lines are compared by (see context/RepeatedLines.ts), as keys: their terms, and single digits,
 * which are no term but tell `4 weeks off` from `8 weeks off`.
 */
export function lineWords(tokens: Iterable<string>): Set<number> {
	const words = new Set<number>();
	for (const token of tokens) {
		const term = processTerm(token) ?? (token.length === 1 && token >= '0' && token <= '9' ? token : null);
		if (term !== null) words.add(termKey(term));
	}
	return words;
}

/** Distinct raw tokens of the messages around `at` (the newest of `recent` being `newest`), among those up to `newest`. */
export function surroundingTokens(recent: readonly Set<string>[], at: number, newest: number): number {
	const union = new Set<string>();
	for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(newest, at + AROUND_WINDOW); other++) {
		if (other === at) continue;
		const tokens = recent[recent.length - 1 - (newest - other)];
		if (tokens) for (const token of tokens) union.add(token);
	}
	return union.size;
}
