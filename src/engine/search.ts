import MiniSearch from 'minisearch';
import { eng as englishStopWords } from 'stopword';
import stem from 'wink-porter2-stemmer';
import type { StoredMessage } from './types';

const STOP_WORDS = new Set([...englishStopWords, 'did', 'does', 'do', 'what', 'when', 'where', 'who', 'which', 'how', 'why', 'yes', 'ok', 'okay', 'lol']);

/** Lower-cases, drops stop words and stems, so "adopted" finds "adopt" and "the" finds nothing. */
export function processTerm(term: string): string | null {
	const lower = term.toLowerCase();
	if (lower.length < 2 || STOP_WORDS.has(lower)) return null;
	return stem(lower);
}

/** A BM25 hit: the message and its score. */
/** How many messages on each side count as a message's surroundings. */
export const AROUND_WINDOW = 2;
/** Weight of the surroundings against the message's own words. */
export const AROUND_BOOST = 0.5;

interface IndexedMessage extends StoredMessage {
	around: string;
}

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
	/** Ids in archive order, and each id's place in it, for neighbour look-ups. */
	private order: string[] = [];
	private readonly position = new Map<string, number>();

	/** Messages in the index, oldest first by insertion. */
	public get size(): number {
		return this.messages.size;
	}

	public add(messages: readonly StoredMessage[]): void {
		for (const message of messages) {
			if (this.messages.has(message.id)) continue;
			this.messages.set(message.id, message);
			this.position.set(message.id, this.order.length);
			this.order.push(message.id);
			const at = this.order.length - 1;
			this.index.add(this.indexed(at));
			// The messages just before gain this one as a neighbour.
			for (let before = Math.max(0, at - AROUND_WINDOW); before < at; before++) this.index.replace(this.indexed(before));
		}
	}

	private indexed(at: number): IndexedMessage {
		const message = this.messages.get(this.order[at]!)!;
		const around: string[] = [];
		for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(this.order.length - 1, at + AROUND_WINDOW); other++) {
			if (other !== at) around.push(this.messages.get(this.order[other]!)!.text);
		}
		return { ...message, around: around.join(' ') };
	}

	public remove(ids: Iterable<string>): void {
		let removed = false;
		for (const id of ids) {
			if (!this.messages.delete(id)) continue;
			this.index.discard(id);
			removed = true;
		}
		if (!removed) return;
		this.order = this.order.filter((id) => this.messages.has(id));
		this.position.clear();
		this.order.forEach((id, index) => this.position.set(id, index));
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

	/** Hits for `query`, best first. */
	public search(query: string, limit = 200): SearchHit[] {
		const results = this.index.search(query);
		const hits: SearchHit[] = [];
		for (const result of results) {
			const message = this.messages.get(result.id as string);
			if (!message) continue;
			hits.push({ message, score: result.score });
			if (hits.length >= limit) break;
		}
		return hits;
	}
}
