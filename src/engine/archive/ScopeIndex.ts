import type { StoredMessage } from '../schemas';
import { MessageColumns } from './index/MessageColumns';
import { type PlaceHit, rank } from './index/rank';
import { AROUND_WINDOW, SCANNED_INDEX_MAX } from './index/ranking';
import { TermColumns } from './index/TermColumns';
import { tokenize } from './index/terms';

export type { PlaceHit } from './index/rank';

/** A BM25 hit: the message and its score. */
export interface SearchHit {
	message: StoredMessage;
	score: number;
}

/**
 * A BM25 index over one scope's archive, appended to in place as turns arrive: its messages as columns
 * ({@link MessageColumns}) and their words as integers ({@link TermColumns}), ranked by {@link rank}.
 */
export class ScopeIndex {
	private messages: MessageColumns;
	private words: TermColumns;

	/** `scannedUpTo`: messages up to which queries scan each message's terms (see {@link SCANNED_INDEX_MAX}). */
	public constructor(private readonly scannedUpTo = SCANNED_INDEX_MAX) {
		this.messages = new MessageColumns(scannedUpTo);
		this.words = new TermColumns(scannedUpTo);
	}

	/** Messages in the index. */
	public get size(): number {
		return this.messages.size;
	}

	/** What the index holds in memory, in bytes, with its messages' ids and text (measured on chat: it errs high by some 10 %). */
	public get bytes(): number {
		// The index's own objects and its arrays' headers (typed arrays cost some 250 bytes each), measured.
		return 1_500 + this.messages.bytes + this.words.bytes;
	}

	/** Adds messages in archive order; a message already indexed is skipped. */
	public add(messages: readonly StoredMessage[]): void {
		// Raw tokens of the newest messages, whose surroundings are not complete yet.
		const recent: Set<string>[] = [];
		for (let at = Math.max(0, this.size - 2 * AROUND_WINDOW); at < this.size; at++) recent.push(new Set(tokenize(this.messages.textAt(at))));
		for (const message of messages) {
			if (this.messages.placeOf(message.id) !== undefined) continue;
			const { at, speaker } = this.messages.append(message);
			this.words.append(at, message, speaker, recent);
		}
	}

	/**
	 * Removes messages. The index is rebuilt from what is left, so no removed word survives in a
	 * neighbour's surroundings or in the term counts (removal is rare: an erasure or a sweep).
	 */
	public remove(ids: Iterable<string>): void {
		const gone = new Set([...ids].filter((id) => this.messages.placeOf(id) !== undefined));
		if (gone.size === 0) return;
		const kept = [...this.all()].filter((message) => !gone.has(message.id));
		this.messages = new MessageColumns(this.scannedUpTo);
		this.words = new TermColumns(this.scannedUpTo);
		this.add(kept);
	}

	/** Where message `id` is in the index (from 0, oldest first), if it holds it. */
	public placeOf(id: string): number | undefined {
		return this.messages.placeOf(id);
	}

	/** The message at place `at`, made from the columns. */
	public messageAt(at: number): StoredMessage {
		return this.messages.messageAt(at, this.words.speakerAt(at));
	}

	/** The message with id `id`, if the index holds it. */
	public get(id: string): StoredMessage | undefined {
		const at = this.placeOf(id);
		return at === undefined ? undefined : this.messageAt(at);
	}

	// A message's fields by its place, read without making the message: a reply reads them for every hit and its neighbours.

	public idAt(at: number): string {
		return this.messages.idAt(at);
	}

	public timeAt(at: number): number {
		return this.messages.timeAt(at);
	}

	public authorIdAt(at: number): string | undefined {
		return this.messages.speaker(this.words.speakerAt(at)).authorId;
	}

	/** Tokens of the message's line, counted when the index took it. */
	public lineTokensAt(at: number): number {
		return this.words.lineTokensAt(at);
	}

	/** Every message, oldest first. */
	public *all(): IterableIterator<StoredMessage> {
		for (let at = 0; at < this.size; at++) yield this.messageAt(at);
	}

	/**
	 * Hits for `query`, best first, among messages written at or after `since` (older ones, past retention
	 * and not swept yet, take no place among the `limit`). Terms most messages share are left out.
	 */
	public search(query: string, limit = 200, since = Number.NEGATIVE_INFINITY): SearchHit[] {
		return this.rank(query, limit, since).map(({ at, score }) => ({ message: this.messageAt(at), score }));
	}

	/** {@link search}'s hits as places, which a caller reads field by field: no message is made. */
	public rank(query: string, limit = 200, since = Number.NEGATIVE_INFINITY): PlaceHit[] {
		return rank(this.messages, this.words, query, limit, since);
	}
}
