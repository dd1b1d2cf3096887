import type { StoredMessage } from '../../schemas';
import { grown } from './PostingBlocks';
import { SCANNED_INDEX_MAX } from './ranking';

/** A message's fields besides its id, text and time: few in a channel, so kept once each. */
export type Speaker = Pick<StoredMessage, 'role' | 'authorId' | 'authorName' | 'personaId'>;

/** What a message's id and text strings cost beyond their characters, with their slots in the index. */
const MESSAGE_BYTES = 72;
/** Up to this many speakers a message's is found by a scan, past it through a map. */
const SCANNED_SPEAKERS = 32;

/** A total order of message ids that puts Discord's in their numeric order (a longer one is larger). */
function compareIds(a: string, b: string): number {
	return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function speakerKey({ role, authorId, authorName, personaId }: Speaker): string {
	return JSON.stringify([role, authorId ?? null, authorName ?? null, personaId ?? null]);
}

/**
 * The messages of an index as columns (ids, texts, times, speakers), from which the messages a query returns
 * are made: an index keeps no message objects. A message is found by its id with a scan up to
 * {@link SCANNED_INDEX_MAX} messages, past that by a binary search of the ids in order.
 */
export class MessageColumns {
	private readonly ids: string[] = [];
	private readonly texts: string[] = [];
	/** A plain array of numbers: for the few messages of most channels, cheaper than a typed array's own objects. */
	private readonly times: number[] = [];
	private readonly speakers: Speaker[] = [];
	/** Past {@link SCANNED_SPEAKERS}: each speaker's number, by {@link speakerKey}. */
	private speakerNumbers: Map<string, number> | null = null;
	/** Past {@link SCANNED_INDEX_MAX}, the places in the order of their ids, for a binary search (below it a scan is as quick). */
	private order: Int32Array<ArrayBuffer> | null = null;
	private messageBytes = 0;

	public constructor(private readonly scannedUpTo = SCANNED_INDEX_MAX) {}

	public get size(): number {
		return this.ids.length;
	}

	/** What the columns hold in memory, in bytes. */
	public get bytes(): number {
		const speakers = this.speakers.length * 120 + (this.speakerNumbers ? this.speakerNumbers.size * 80 : 0);
		return (this.order?.byteLength ?? 0) + speakers + this.messageBytes;
	}

	/** Appends a message; returns its place and its speaker's number. */
	public append(message: StoredMessage): { at: number; speaker: number } {
		const at = this.ids.length;
		this.ids.push(message.id);
		this.texts.push(message.text);
		this.times.push(message.ts);
		if (this.order) this.fileId(at);
		else if (this.ids.length > this.scannedUpTo)
			this.order = Int32Array.from(this.ids.keys()).sort((a, b) => compareIds(this.ids[a]!, this.ids[b]!));
		this.messageBytes += MESSAGE_BYTES + message.id.length + message.text.length;
		return { at, speaker: this.speakerNumber(message) };
	}

	/** Where message `id` is (from 0, oldest first), if the columns hold it. */
	public placeOf(id: string): number | undefined {
		if (!this.order) {
			const at = this.ids.lastIndexOf(id);
			return at < 0 ? undefined : at;
		}
		const rank = this.rankOf(id);
		const at = this.order[rank];
		return rank < this.ids.length && this.ids[at!] === id ? at : undefined;
	}

	/** The message at place `at`, made from the columns. */
	public messageAt(at: number, speaker: number): StoredMessage {
		const { role, authorId, authorName, personaId } = this.speakers[speaker]!;
		// The fields in the order stored messages have them.
		const message = { id: this.ids[at]!, role } as StoredMessage;
		if (authorId !== undefined) message.authorId = authorId;
		if (authorName !== undefined) message.authorName = authorName;
		message.text = this.texts[at]!;
		message.ts = this.times[at]!;
		if (personaId !== undefined) message.personaId = personaId;
		return message;
	}

	public idAt(at: number): string {
		return this.ids[at]!;
	}

	public textAt(at: number): string {
		return this.texts[at]!;
	}

	public timeAt(at: number): number {
		return this.times[at]!;
	}

	public speaker(number: number): Speaker {
		return this.speakers[number]!;
	}

	/** Where `id` is or would go among the ids in order. */
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
		const order = grown(this.order!, at + 1);
		this.order = order;
		const id = this.ids[at]!;
		if (at === 0 || compareIds(this.ids[order[at - 1]!]!, id) < 0) {
			order[at] = at;
			return;
		}
		const rank = this.rankOf(id);
		order.copyWithin(rank + 1, rank, at);
		order[rank] = at;
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
}
