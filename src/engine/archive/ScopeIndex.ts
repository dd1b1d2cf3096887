import type { StoredMessage } from '../schemas';
import { appendMessage } from './index/append';
import { boundedTokenCount } from '../format/tokens';
import { messageLine } from '../format/lines';
import { PersonaNames } from '../format/speakers';
import { type IndexColumns, LINE_TOKENS, placeOf, type Speaker, SPEAKER, STRIDE, UNCOUNTED, WORD_MASK } from './index/columns';
import type { PostingBlocks } from './index/PostingBlocks';
import { type DateSpan, type PlaceHit, rank } from './index/rank';
import { SpeakerAliases } from './index/SpeakerAliases';
import { AROUND_WINDOW, SCANNED_INDEX_MAX } from './index/ranking';
import { TextAnalysis, tokenize } from './index/terms';

export type { DateSpan, PlaceHit } from './index/rank';

/** What one step of indexing reads at most (see {@link ScopeIndex.add}; the engine's steps are in IndexSlices.ts). */
export interface StepSize {
	messages: number;
	chars: number;
}

/** A BM25 hit: the message and its score. */
export interface SearchHit {
	message: StoredMessage;
	score: number;
}

/**
 * A BM25 index over one scope's archive, appended to in place as turns arrive. It keeps no message objects:
 * its messages are columns (ids, texts, times, speakers) from which the messages a query returns are made,
 * and their words are integers in typed arrays: per-message figures in `stats`; up to {@link SCANNED_INDEX_MAX}
 * messages each message's `(term key, count)` pairs, which a query scans; past it postings by term. The
 * garbage collector sees a few arrays, whatever the archive's size.
 *
 * The columns ({@link IndexColumns}) are read and written in place by `index/append.ts` (adding a message) and
 * `index/rank.ts` (scoring a query): this class holds them and answers for one message by its place.
 */
export class ScopeIndex implements IndexColumns {
	public ids: string[] = [];
	public texts: string[] = [];
	/** A plain array of numbers: for the few messages of most channels, cheaper than a typed array's own objects. */
	public times: number[] = [];
	public timesInOrder = true;
	public speakers: Speaker[] = [];
	/** Past a few dozen speakers: each speaker's number, by its fields. */
	public speakerNumbers: Map<string, number> | null = null;
	/** Past {@link SCANNED_INDEX_MAX}, the places in the order of their ids, for a binary search (below it a scan is as quick). */
	public order: Int32Array<ArrayBuffer> | null = null;
	/** Per message, {@link STRIDE} figures (see {@link TEXT_LENGTH}). */
	public stats: Int32Array<ArrayBuffer> = new Int32Array(STRIDE * 4);
	/** Below {@link SCANNED_INDEX_MAX}: each message's `(term key, count)` pairs, from its `TERMS_START`. */
	public terms: Int32Array<ArrayBuffer> | null = new Int32Array(32);
	public termsUsed = 0;
	/** Past {@link SCANNED_INDEX_MAX}: postings by term key. */
	public postings: PostingBlocks | null = null;
	public textTotal = 0;
	public aroundTotal = 0;
	public nameTotal = 0;
	public messageBytes = 0;
	public aliases = new SpeakerAliases();
	/** The message a step began to read and has not added yet, and what it read of it. */
	private reading: { id: string; text: TextAnalysis } | null = null;

	/** `scannedUpTo`: messages up to which queries scan each message's terms (see {@link SCANNED_INDEX_MAX}). */
	public constructor(public readonly scannedUpTo = SCANNED_INDEX_MAX) {}

	/** Messages in the index. */
	public get size(): number {
		return this.ids.length;
	}

	/** What the index holds in memory, in bytes, with its messages' ids and text (measured on chat: it errs high by some 10 %). */
	public get bytes(): number {
		const speakers = this.speakers.length * 120 + (this.speakerNumbers ? this.speakerNumbers.size * 80 : 0);
		// The index's own objects and its arrays' headers (typed arrays cost some 250 bytes each), measured.
		const arrays = this.stats.byteLength + (this.terms?.byteLength ?? 0) + (this.order?.byteLength ?? 0) + (this.postings?.bytes ?? 0);
		return 1_500 + arrays + speakers + this.messageBytes;
	}

	/**
	 * Adds messages in archive order, a message already indexed being skipped: all of them, or as many from the first as
	 * one `step` reads. A message longer than a step is read over several (the index keeps what it read of it) and added by
	 * the one that ends it. Returns how many messages it added or skipped.
	 */
	public add(messages: readonly StoredMessage[], step: StepSize = WHOLE): number {
		const recent = recentTokensOf(this);
		let room = step.chars;
		let done = 0;
		for (const message of messages) {
			if (done === step.messages || room <= 0) break;
			if (this.placeOf(message.id) === undefined) {
				const { reading } = this;
				const text = reading?.id === message.id && reading.text.text === message.text ? reading.text : new TextAnalysis(message.text, 0);
				room -= text.advance(room);
				if (!text.done) {
					this.reading = { id: message.id, text };
					break;
				}
				this.reading = null;
				appendMessage(this, message, recent, text);
			}
			done++;
		}
		return done;
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
		this.timesInOrder = true;
		this.speakers = [];
		this.speakerNumbers = null;
		this.order = null;
		this.stats = new Int32Array(STRIDE * 4);
		this.terms = new Int32Array(32);
		this.termsUsed = 0;
		this.postings = null;
		this.textTotal = 0;
		this.aroundTotal = 0;
		this.nameTotal = 0;
		this.messageBytes = 0;
		this.aliases = new SpeakerAliases();
		this.reading = null;
		if (lastAdded?.index === this) lastAdded = null;
		this.add(kept);
	}

	/** Where message `id` is in the index (from 0, oldest first), if it holds it. */
	public placeOf(id: string): number | undefined {
		return placeOf(this, id);
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

	/** The message's words as a mask (see {@link wordMask}, index/columns.ts). */
	public wordMaskAt(at: number): number {
		return this.stats[STRIDE * at + WORD_MASK]!;
	}

	/** Tokens of the message's line (never below the true count), counted the first time a context asks. */
	public lineTokensAt(at: number): number {
		const slot = STRIDE * at + LINE_TOKENS;
		const known = this.stats[slot]!;
		if (known !== UNCOUNTED) return known;
		const { tokens, settled } = boundedTokenCount(messageLine(this.messageAt(at), PersonaNames.none));
		if (settled) this.stats[slot] = tokens;
		return tokens;
	}

	/** Every message, oldest first. */
	public *all(): IterableIterator<StoredMessage> {
		for (let at = 0; at < this.ids.length; at++) yield this.messageAt(at);
	}

	/**
	 * Hits for `query`, best first, among messages written at or after `since` (older ones, past retention
	 * and not swept yet, take no place among the `limit`). Terms most messages share are left out.
	 */
	public search(query: string, limit = 200, since = Number.NEGATIVE_INFINITY): SearchHit[] {
		return this.rank(query, limit, since).map(({ at, score }) => ({ message: this.messageAt(at), score }));
	}

	/** {@link search}'s hits as places, which a caller reads field by field: no message is made. */
	public rank(query: string, limit = 200, since = Number.NEGATIVE_INFINITY, asked: DateSpan | null = null): PlaceHit[] {
		return rank(this, query, limit, since, asked);
	}

	/** Who wrote the message at place `at`: role, author and persona. */
	public speakerAt(at: number): Speaker {
		return this.speakers[this.stats[STRIDE * at + SPEAKER]!]!;
	}
}

const WHOLE: StepSize = { messages: Number.POSITIVE_INFINITY, chars: Number.POSITIVE_INFINITY };

/**
 * Raw tokens of the newest messages of the index added to last, whose surroundings are not complete yet. Kept between
 * adds: long messages are added one at a time (see IndexCache), and splitting the four before each again took a fifth of
 * the indexing time. One index's alone, since 10,000 channels' would take some 20 MiB.
 */
let lastAdded: { index: ScopeIndex; tokens: Set<string>[] } | null = null;

function recentTokensOf(index: ScopeIndex): Set<string>[] {
	if (lastAdded?.index !== index) lastAdded = { index, tokens: index.texts.slice(-2 * AROUND_WINDOW).map((text) => new Set(tokenize(text))) };
	return lastAdded.tokens;
}
