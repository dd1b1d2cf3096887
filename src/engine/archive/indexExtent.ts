import type { ArchiveHead, StoredMessage } from '../schemas';
import { SCANNED_INDEX_MAX } from './index/ranking';
import { textChars } from './IndexSlices';
import { ScopeIndex } from './ScopeIndex';

// How much of an archive its index in memory covers: what a first load reads, and how far back a complete or a trimmed
// index reaches within the cache's bytes. When and how the loads run is IndexCache's.

/** The newest chunks (512 messages of chat) a context is served from while the rest of its archive's index loads... */
export const FIRST_CHUNKS = 8;
/** ...as far back as this many characters of text: 512 messages of chat hold some 30,000, 512 of 4,000 characters far more. */
const FIRST_CHARS = 32_000;
/**
 * An archive of up to this many messages, holding up to this many characters, is loaded whole by its first context, so
 * that what a context finds never depends on whether background work had a moment to run: a script, an evaluation or a
 * bot under load asks in a loop of awaits, and background indexing waits for a moment no call runs. The characters bound
 * what a first context waits for when messages are long; the load yields to the event loop between slices.
 */
const SMALL_ARCHIVE = { messages: 2_000, chars: 16 * FIRST_CHARS };
/** The share of the cache one archive's index may take, so a huge channel never pushes every other one out. */
export const MAX_INDEX_SHARE = 0.5;
/** An index is loaded to this share of that: the rest is room for the messages appended later... */
const LOADED_SHARE = 0.75;
/**
 * ...and one that appends grew past it is rebuilt to this share: each rebuild then indexes again no more than the
 * appends since the last one added, so a channel that keeps growing costs at most twice its indexing.
 */
const TRIMMED_SHARE = 0.5;

/**
 * A new index: the archive's chunks before `upTo`, as far back (never before `first`) as `room` bytes allow at `perChunk`
 * bytes a chunk, then the messages the current index holds from place `copyFrom` on (those of the chunks from `upTo` on,
 * and those appended since).
 */
export interface Rebuild {
	first: number;
	upTo: number;
	copyFrom: number;
	perChunk: number;
	room: number;
}

/** What a first load reads: the chunks from `from` to the newest, of which it indexes the newest within `chars` characters. */
export function firstRead(head: ArchiveHead): { from: number; chars: number } {
	const first = head.first ?? 0;
	const small = head.count <= SMALL_ARCHIVE.messages;
	const firstChunks = small ? head.chunks - first : FIRST_CHUNKS;
	return { from: Math.max(first, head.chunks - firstChunks), chars: small ? SMALL_ARCHIVE.chars : FIRST_CHARS };
}

/** How many of the newest `chunks` (oldest first) hold `chars` characters: the newest one whatever its size. */
export function newestWithin(chunks: readonly (readonly StoredMessage[] | undefined)[], chars: number): number {
	let kept = 0;
	for (let total = 0; kept < chunks.length && (kept === 0 || total < chars); kept++) total += textChars(chunks.at(-1 - kept) ?? []);
	return kept;
}

/**
 * The load of an archive's older chunks, from `first` up to `from`, once a first load indexed those from `from` on into
 * `index`: as far back as {@link LOADED_SHARE} of `maxIndexBytes` allows.
 */
export function olderChunks(head: ArchiveHead, first: number, from: number, index: ScopeIndex, maxIndexBytes: number): Rebuild {
	// Past a few thousand messages the terms take some half of what they take per message in the newest ones (their
	// posting blocks fill up: 0.40 to 0.52 of it, measured on ordinary and varied chat); ids and texts the same.
	const perChunk = (index.messageBytes + (index.bytes - index.messageBytes) * 0.5) / Math.max(1, head.chunks - from);
	return { first, upTo: from, copyFrom: 0, perChunk, room: maxIndexBytes * LOADED_SHARE };
}

/** The newest part of an archive whose index (holding its chunks from `from` on) grew past its share: {@link TRIMMED_SHARE} of it. */
export function trimmed(head: ArchiveHead, index: ScopeIndex, from: number, maxIndexBytes: number): Rebuild {
	const perChunk = index.bytes / Math.max(1, head.chunks - from);
	return { first: head.first ?? 0, upTo: head.chunks, copyFrom: index.size, perChunk, room: maxIndexBytes * TRIMMED_SHARE };
}

/**
 * An empty index for an archive whose head is `head`: one that will hold more than {@link SCANNED_INDEX_MAX} messages keeps
 * postings from the start, since turning a few hundred messages' scanned terms into postings at once (some 8 ms for long
 * messages) would hold the event loop in a single step.
 */
export function indexFor(head: ArchiveHead): ScopeIndex {
	return head.count > SCANNED_INDEX_MAX ? new ScopeIndex(0) : new ScopeIndex();
}
