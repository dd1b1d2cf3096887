// How the archive's index ranks: BM25+ over three fields, and which query terms it reads.

/** How many messages on each side count as a message's surroundings. */
export const AROUND_WINDOW = 2;
/** Weight of the surroundings against the message's own words. */
export const AROUND_BOOST = 0.5;
/** Weight of the day or span a question names ("on March 9", "last Saturday"), a term every message written then holds. */
export const DATE_BOOST = 1;
/** Weight of the author's name. */
export const AUTHOR_BOOST = 0.3;
/**
 * A query term naming a speaker who wrote more than this share of the messages scores on the author field only:
 * in a chat between a few people their names in the text are greetings and callbacks ("Hey Maya!"), which rank
 * nothing apart (measured in docs/context.md: on the generated set 61.1 -> 64.8 % at 1,500 tokens, the fixture unchanged).
 */
export const SPEAKER_NAME_SHARE = 0.2;

/**
 * A message that names something (a capitalised word inside a sentence: `booked Lisbon`, `at Pinecrest Bank`) or holds a
 * number (`4 weeks`, `1400 a month`, `june 23`) scores this share more: questions ask for names, dates and amounts, and
 * small talk holds few. It matters most among hits that tie, such as a main speaker's messages matched on the author alone
 * (measured in docs/context.md: on the generated set 74.4 -> 84.9 % at 1,500 tokens, the fixture one answer turn fewer,
 * written in lower case as it is).
 */
export const SPECIFIC_BOOST = 0.2;
const NAME_OR_NUMBER = /\d|(?<![.!?]\s)(?<=\s)\p{Lu}\p{Ll}/u;

/** Whether a message's text holds a number or a capitalised word that does not open a sentence. */
export function namesOrCounts(text: string): boolean {
	return NAME_OR_NUMBER.test(text);
}

/**
 * Query terms found in more than this share of the messages (and at least {@link COMMON_TERM_MIN_DOCS})
 * are left out of the search: they rank nothing apart and would make a query read most of the index.
 */
export const COMMON_TERM_SHARE = 0.3;
export const COMMON_TERM_MIN_DOCS = 40;
/** ...and whatever the archive's size, a term in more messages than this is common: a query's cost stays flat as the archive grows. */
export const COMMON_TERM_MAX_DOCS = 500;
/** When every query term is common, the rarest ones still search... */
export const RAREST_KEPT = 2;
/** ...through their newest messages only: a query reads at most this many postings per term, whatever the archive's size. */
export const MAX_POSTINGS_READ = 1000;

/**
 * Up to this many messages an index keeps each message's terms in one array and a query scans them all
 * (a few thousand integers); past it, it keeps postings by term. Most channels never get there, and their
 * index costs a few hundred bytes beyond the messages themselves.
 */
export const SCANNED_INDEX_MAX = 256;

/**
 * A query ranks with at most this many of its distinct terms, the ones held by the fewest messages (the rest would
 * add little to a ranking and much to its cost: a query of 4,000 characters holds hundreds).
 */
export const MAX_QUERY_TERMS = 64;
/** ...chosen among its first this many distinct words: each new word costs a stemming, and a query may bring hundreds. */
export const MAX_QUERY_WORDS = 256;

/** BM25+ (Lv and Zhai), with MiniSearch's defaults. */
export const K1 = 1.2;
export const B = 0.7;
export const DELTA = 0.5;

/** Inverse document frequency of a term that `holding` of `total` messages hold. */
export function idf(total: number, holding: number): number {
	return Math.log(1 + (total - holding + 0.5) / (holding + 0.5));
}

/** BM25+ of one field of one message. */
export function bm25(count: number, length: number, averageLength: number): number {
	return DELTA + (count * (K1 + 1)) / (count + K1 * (1 - B + (B * length) / averageLength));
}

/** Whether a term names a speaker of a large share of the `total` messages: it then ranks on the author field alone. */
export function namesMainSpeaker(nameHeld: number, total: number): boolean {
	return nameHeld > total * SPEAKER_NAME_SHARE;
}

/**
 * The terms held by few enough messages, the {@link MAX_QUERY_TERMS} rarest of them when there are more; when there are
 * none, the {@link RAREST_KEPT} rarest held by any. A main speaker's name is kept however often the text says it (greetings):
 * it ranks on the author field, where it tells that speaker's messages from the others'.
 */
export function distinctiveTerms<T extends { ownHeld: number; nameHeld: number }>(terms: readonly T[], common: number, total: number): T[] {
	const known = terms.filter((term) => term.ownHeld > 0 || term.nameHeld > 0);
	const distinctive = known.filter((term) => term.ownHeld <= common || namesMainSpeaker(term.nameHeld, total));
	if (distinctive.length > MAX_QUERY_TERMS) return distinctive.sort((a, b) => a.ownHeld - b.ownHeld).slice(0, MAX_QUERY_TERMS);
	return distinctive.length > 0 ? distinctive : known.sort((a, b) => a.ownHeld - b.ownHeld).slice(0, RAREST_KEPT);
}
