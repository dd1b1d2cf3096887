import MiniSearch from 'minisearch';
import { eng as englishStopWords } from 'stopword';
import stem from 'wink-porter2-stemmer';
import type { StoredMessage } from './types';

const STOP_WORDS = new Set([...englishStopWords, 'did', 'does', 'do', 'what', 'when', 'where', 'who', 'which', 'how', 'why', 'yes', 'ok', 'okay', 'lol']);

/** Longer runs of letters are no word (a hash, a key mash) and would cost the stemmer quadratic time. */
const MAX_TERM_CHARS = 64;

/** Lower-cases, drops stop words and stems, so "adopted" finds "adopt" and "the" finds nothing. */
export function processTerm(term: string): string | null {
	const lower = term.toLowerCase();
	if (lower.length < 2 || lower.length > MAX_TERM_CHARS || STOP_WORDS.has(lower)) return null;
	return stem(lower);
}

/** How many messages on each side count as a message's surroundings. */
export const AROUND_WINDOW = 2;
/** Weight of the surroundings against the message's own words. */
export const AROUND_BOOST = 0.5;

interface IndexedMessage extends StoredMessage {
	around: string;
}

/**
 * Query terms found in more than this share of the messages (and at least {@link COMMON_TERM_MIN_DOCS})
 * are left out of the search: they rank nothing apart and would make a query read most of the index.
 */
export const COMMON_TERM_SHARE = 0.05;
export const COMMON_TERM_MIN_DOCS = 40;
/** When every query term is common, the rarest ones still search. */
const RAREST_KEPT = 2;

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** A BM25 hit: the message and its score. */
export interface SearchHit {
	message: StoredMessage;
	score: number;
}

/**
 * A BM25 index (MiniSearch's BM25+) over one scope's archive, updated in place as turns arrive,
 * so a query costs the same whatever the archive's size.
 */
export class ScopeIndex {
	// Each message is also indexed with the words of its neighbours: in a chat, the answer to a
	// question often sits one line away from the words that name its topic.
	private readonly index = new MiniSearch<IndexedMessage>({
		fields: ['text', 'around', 'authorName'],
		storeFields: [],
		processTerm,
		searchOptions: { boost: { text: 1, around: AROUND_BOOST, authorName: 0.3 }, combineWith: 'OR', prefix: false }
	});

	private readonly messages = new Map<string, StoredMessage>();
	/** How many messages use each (stemmed) term, to leave common terms out of a query. */
	private readonly documentFrequency = new Map<string, number>();
	/** Ids in archive order, and each id's place in it, for neighbour look-ups. */
	private order: string[] = [];
	private readonly position = new Map<string, number>();

	/** Messages in the index, oldest first by insertion. */
	public get size(): number {
		return this.messages.size;
	}

	/** Adds messages in archive order; each is indexed once, and the few before it learn their new neighbours. */
	public add(messages: readonly StoredMessage[]): void {
		const start = this.order.length;
		for (const message of messages) {
			if (this.messages.has(message.id)) continue;
			this.messages.set(message.id, message);
			this.position.set(message.id, this.order.length);
			this.order.push(message.id);
			for (const term of termsOf(message.text)) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
		}
		if (this.order.length === start) return;
		for (let at = start; at < this.order.length; at++) this.index.add(this.indexed(at));
		for (let before = Math.max(0, start - AROUND_WINDOW); before < start; before++) this.index.replace(this.indexed(before));
	}

	private indexed(at: number): IndexedMessage {
		const message = this.messages.get(this.order[at]!)!;
		const around: string[] = [];
		for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(this.order.length - 1, at + AROUND_WINDOW); other++) {
			if (other !== at) around.push(this.messages.get(this.order[other]!)!.text);
		}
		return { ...message, around: around.join(' ') };
	}

	/**
	 * Removes messages. The index is rebuilt from what is left, so no removed word survives in a
	 * neighbour's surroundings or in the term counts (removal is rare: an erasure or a sweep).
	 */
	public remove(ids: Iterable<string>): void {
		const gone = new Set([...ids].filter((id) => this.messages.has(id)));
		if (gone.size === 0) return;
		const kept = this.order.filter((id) => !gone.has(id)).map((id) => this.messages.get(id)!);
		this.index.removeAll();
		this.messages.clear();
		this.documentFrequency.clear();
		this.position.clear();
		this.order = [];
		this.add(kept);
	}

	/** The message `offset` places after (or, negative, before) `id` in the archive. */
	public neighbour(id: string, offset: number): StoredMessage | undefined {
		const at = this.position.get(id);
		if (at === undefined) return undefined;
		const other = this.order[at + offset];
		return other === undefined ? undefined : this.messages.get(other);
	}

	public get(id: string): StoredMessage | undefined {
		return this.messages.get(id);
	}

	public all(): IterableIterator<StoredMessage> {
		return this.messages.values();
	}

	/** Hits for `query`, best first. Terms most messages share are left out (see {@link COMMON_TERM_SHARE}). */
	public search(query: string, limit = 200): SearchHit[] {
		const terms = this.queryTerms(query);
		if (terms.length === 0) return [];
		const results = this.index.search(terms.join(' '), { tokenize: (text) => text.split(' '), processTerm: (term) => term });
		const hits: SearchHit[] = [];
		for (const result of results) {
			const message = this.messages.get(result.id as string);
			if (!message) continue;
			hits.push({ message, score: result.score });
			if (hits.length >= limit) break;
		}
		return hits;
	}

	private queryTerms(query: string): string[] {
		const known = [...new Set(termsOf(query))].map((term) => ({ term, count: this.documentFrequency.get(term) ?? 0 })).filter(({ count }) => count > 0);
		const common = Math.max(COMMON_TERM_MIN_DOCS, this.messages.size * COMMON_TERM_SHARE);
		const distinctive = known.filter(({ count }) => count <= common);
		const chosen = distinctive.length > 0 ? distinctive : known.sort((a, b) => a.count - b.count).slice(0, RAREST_KEPT);
		return chosen.map(({ term }) => term);
	}
}

/** The distinct stemmed terms of a text, as the index sees them. */
function termsOf(text: string): Set<string> {
	const terms = new Set<string>();
	for (const token of tokenize(text)) {
		const term = processTerm(token);
		if (term) terms.add(term);
	}
	return terms;
}
