import { indexedAuthorsOf, replyFingerprint } from '../privacy/voices';
import { type RecordSetChange, Records } from '../records/Records';
import { parseScopeKey } from '../records/scopes';
import { type ArchiveLocation, ArchiveMarker, type StoredMessage } from '../schemas';

/*
 * An archive's marker (records/Records.ts ArchiveMarkerValue) holds 1 or 2 in an archive that is not located, a location or
 * a tombstone (3) in one that is. Markers pass unchecked by the store (their keys may look like any archive key), so each
 * reading here takes a value it does not know as the one that forgets most safely.
 */

export function isLocation(marker: unknown): marker is ArchiveLocation {
	return typeof marker === 'object' && marker !== null && !Array.isArray(marker);
}

/** The chunks a location lists for the replies; null when what it holds there is not a list. */
function repliesOf(marker: ArchiveLocation): number[] | null {
	const replies: unknown = marker.r;
	return replies === undefined ? [] : Array.isArray(replies) ? (replies as number[]) : null;
}

/** Whether a marker keeps its message from being archived again: archived, or removed since; not when an edit took it out. */
export function blocksArchiving(marker: unknown): boolean {
	if (marker === undefined || marker === ArchiveMarker.editedAway) return false;
	return !isLocation(marker) || marker.c !== undefined;
}

/** Whether a marker says an edit took its message out (its new text unknown), its replies kept. */
export function editedAway(marker: unknown): boolean {
	return marker === ArchiveMarker.editedAway || (isLocation(marker) && marker.c === undefined);
}

/**
 * The chunks holding a marker's message and the persona's replies to it; null when the marker does not say (an archive
 * that is not located, or a value not understood), and the archive must be read whole.
 */
export function chunksOf(marker: unknown): number[] | null {
	if (marker === undefined || marker === ArchiveMarker.removed) return [];
	const replies = isLocation(marker) ? repliesOf(marker) : null;
	if (!isLocation(marker) || replies === null) return null;
	const chunks = [...(marker.c === undefined ? [] : [marker.c]), ...replies];
	return chunks.every((chunk) => Number.isInteger(chunk) && chunk >= 0) ? chunks : null;
}

/**
 * The marker of a message archived in `chunk`, keeping the replies an earlier marker of it listed, and the chunk it named
 * if another: a copy archived twice is read by a deletion too.
 */
export function archivedIn(chunk: number, earlier: unknown): ArchiveLocation {
	const replies = isLocation(earlier) ? (repliesOf(earlier) ?? []) : [];
	const elsewhere = isLocation(earlier) && earlier.c !== undefined && earlier.c !== chunk ? [earlier.c] : [];
	const read = [...new Set([...replies, ...elsewhere])];
	return read.length > 0 ? { c: chunk, r: read } : { c: chunk };
}

/** `marker` with a reply to its message in `chunk`. */
export function withReplyIn(marker: ArchiveLocation, chunk: number): ArchiveLocation {
	const replies = repliesOf(marker) ?? [];
	return replies.includes(chunk) || marker.c === chunk ? marker : { ...marker, r: [...replies, chunk] };
}

/**
 * The marker a message an edit took out gets: in a located archive, or where its marker says where it was already (an
 * archive the sweep is locating), {@link editedAwayFrom} it; else 2, as an archive that is not located writes.
 */
export function editedAwayMarker(marker: unknown, located: boolean): ArchiveLocation | typeof ArchiveMarker.editedAway {
	return located || isLocation(marker) ? editedAwayFrom(marker) : ArchiveMarker.editedAway;
}

/**
 * The marker of a message an edit took out of a located archive: its replies stay where they are, the chunk it was in
 * among them (a reply in the same chunk was not listed apart).
 */
export function editedAwayFrom(marker: unknown): ArchiveLocation {
	if (!isLocation(marker)) return {};
	const replies = [...new Set([...(marker.c === undefined ? [] : [marker.c]), ...(repliesOf(marker) ?? [])])];
	return replies.length > 0 ? { r: replies } : {};
}

/**
 * The markers an append writes: each fresh message's, with the chunk `chunkOf` puts it in, and, for each persona reply, the
 * marker of the message it answers (fresh, or read in `stored`) and of its text's fingerprint (see replyFingerprint)
 * listing the reply's chunk. `stored` holds the markers as read before the append, by id.
 */
export function appendedMarkers(
	fresh: readonly StoredMessage[],
	chunkOf: (id: string) => number,
	stored: ReadonlyMap<string, unknown>
): Map<string, ArchiveLocation> {
	const next = new Map<string, ArchiveLocation>();
	for (const message of fresh) next.set(message.id, archivedIn(chunkOf(message.id), stored.get(message.id)));
	for (const message of fresh) {
		if (message.role !== 'persona') continue;
		const chunk = chunkOf(message.id);
		const answered = message.replyTo === undefined ? undefined : (next.get(message.replyTo) ?? stored.get(message.replyTo));
		// A message archived with no location, or not archived here, has nothing to list the reply in.
		if (isLocation(answered)) next.set(message.replyTo!, withReplyIn(answered, chunk));
		const fingerprint = replyFingerprint(message);
		if (fingerprint === null) continue;
		const known = next.get(fingerprint) ?? stored.get(fingerprint);
		next.set(fingerprint, isLocation(known) ? withReplyIn(known, chunk) : { c: chunk });
	}
	return next;
}

/** The ids whose markers {@link appendedMarkers} reads besides the messages' own: the messages replies answer, and the replies' fingerprints. */
export function relatedMarkerIds(messages: readonly StoredMessage[]): string[] {
	const own = new Set(messages.map((message) => message.id));
	const related = new Set<string>();
	for (const message of messages) {
		if (message.role !== 'persona') continue;
		if (message.replyTo !== undefined && !own.has(message.replyTo)) related.add(message.replyTo);
		const fingerprint = replyFingerprint(message);
		if (fingerprint !== null) related.add(fingerprint);
	}
	return [...related];
}

/**
 * The chunks each member's words went to in an append to a located archive: their messages, and the persona's replies to
 * them (every persona line of a DM is its member's), as the author index counts them (see indexedAuthorsOf).
 */
export function authorChunks(scopeKey: string, fresh: readonly StoredMessage[], chunkOf: (id: string) => number): RecordSetChange[] {
	const scope = parseScopeKey(scopeKey);
	const dmOwnerId = scope?.scope === 'user' ? scope.ownerId : null;
	const byAuthor = new Map<string, Set<string>>();
	for (const message of fresh)
		for (const authorId of indexedAuthorsOf(dmOwnerId, message)) {
			const chunks = byAuthor.get(authorId) ?? new Set();
			byAuthor.set(authorId, chunks.add(String(chunkOf(message.id))));
		}
	return [...byAuthor].map(([authorId, chunks]) => ({ key: Records.archiveAuthorChunks(scopeKey, authorId), members: [...chunks] }));
}

/**
 * What leaves authors' chunk sets when a chunk of a located archive goes from `before` to `after`: the chunk, from the set
 * of every member whose words were in it and are no longer, so that a set names only chunks holding its member's words.
 */
export function authorsGoneFrom(
	scopeKey: string,
	chunk: number,
	before: readonly StoredMessage[],
	after: readonly StoredMessage[]
): RecordSetChange[] {
	const kept = new Set(authorChunks(scopeKey, after, () => chunk).map(({ key }) => key));
	return authorChunks(scopeKey, before, () => chunk).filter(({ key }) => !kept.has(key));
}

/** The chunk number of a chunk key (`…:chunk:<n>`). */
export function chunkNumber(key: string): number {
	return Number(key.slice(key.lastIndexOf(':') + 1));
}
