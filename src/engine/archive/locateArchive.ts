import { type ArchiveHead, ArchiveMarker, type StoredMessage } from '../schemas';
import { type ArchiveMarkerValue, Records } from '../records/Records';
import type { RecordWrite } from '../records/RecordStore';
import { type Archive, isUnlocated } from './Archive';
import { appendedMarkers, authorChunks, isLocation, relatedMarkerIds, withReplyIn } from './locations';
import { markerKeysToRead, markersRead } from './markerKeys';

/** Chunks located at a time, each slice under the head's lock: an append to the archive waits for one slice at most. */
const CHUNKS_PER_SLICE = 16;
/** Markers of removed messages read at a time. */
const MARKERS_PER_READ = 1_000;
/** Times the last step is tried while other writes keep changing the head; the next sweep tries again. */
const FINAL_ATTEMPTS = 3;

/**
 * Makes an archive begun before markers held locations a located one (see ArchiveHead.located), so that forgetting in
 * it reads what it forgets instead of the whole archive. A slice of chunks at a time, each under the head's lock as
 * capture's appends and forgetting are: each message's marker gets its chunk, the markers of the messages persona
 * replies answer (and of their texts' fingerprints) get the replies' chunks, and each author's chunks join their set.
 * Under the lock once more, the chunks appended meanwhile are located; then the head says `located`, by a compare-and-set
 * against the head that step read, since another process may append or remove meanwhile. Until then every
 * marker not yet written says nothing of where its message is, and forgetting reads the archive whole, as before; an
 * archive with a chunk that cannot be read stays so. Returns whether the archive became located.
 */
export async function locateArchive(archive: Archive, scopeKey: string): Promise<boolean> {
	const { store } = archive;
	const headKey = Records.archiveHead(scopeKey);
	const tombstonesKey = Records.archiveTombstones(scopeKey);
	const underLock = <T>(task: () => Promise<T>) => store.locked([headKey], task);

	// Replies whose message had no location when their chunk was located (an edit took it out, and it was archived again
	// later): the message's id → their chunks, listed in its marker once it is located.
	const pending = new Map<string, Set<number>>();
	const start = await underLock(async () => {
		const [head, tombstones] = await store.read([headKey, tombstonesKey]);
		if (!isUnlocated(head)) return null;
		// A message an edit took out keeps its replies, which the chunks below then list in its marker.
		await rewriteMarkers(archive, scopeKey, Object.keys(tombstones ?? {}), ArchiveMarker.editedAway, {});
		return head;
	});
	if (!start) return false;
	// The chunk appended to when the pass began: it and any after it are located last, under the lock.
	const tail = Math.max(start.first ?? 0, start.chunks - 1);
	for (let from = start.first ?? 0; from < tail; from += CHUNKS_PER_SLICE) {
		const going = await underLock(async () => {
			const head = await store.get(headKey);
			return isUnlocated(head) && locateChunks(archive, scopeKey, head, from, Math.min(from + CHUNKS_PER_SLICE, tail), pending);
		});
		if (!going) return false;
	}
	for (let attempt = 0; attempt < FINAL_ATTEMPTS; attempt++) {
		const outcome = await underLock(async () => {
			const [head, tombstones] = await store.read([headKey, tombstonesKey]);
			if (!isUnlocated(head)) return 'gone';
			for (let from = tail; from < head.chunks; from += CHUNKS_PER_SLICE)
				if (!(await locateChunks(archive, scopeKey, head, from, Math.min(from + CHUNKS_PER_SLICE, head.chunks), pending))) return 'gone';
			// Every message the chunks hold has its location now: a removed message's marker still 1 is its tombstone.
			await rewriteMarkers(archive, scopeKey, Object.keys(tombstones ?? {}), ArchiveMarker.archived, ArchiveMarker.removed);
			// A compare-and-set, not a write: this process's appends wait for the lock, but another process's append or
			// removal since the read leaves the head as it wrote it, and its chunks are located on the next attempt.
			let marked = false;
			await store.updateHeld(headKey, (current) => {
				marked = current !== undefined && sameHead(current, head);
				return marked ? { value: { ...current!, located: true as const }, ttlMs: archive.keyTtlMs } : null;
			});
			return marked ? 'located' : 'changed';
		});
		if (outcome !== 'changed') return outcome === 'located';
	}
	return false;
}

/** Whether a head read now is the one located: no chunk, message or removal since. */
function sameHead(current: ArchiveHead, located: ArchiveHead): boolean {
	return (
		current.located !== true &&
		current.chunks === located.chunks &&
		current.count === located.count &&
		current.epoch === located.epoch &&
		(current.first ?? 0) === (located.first ?? 0)
	);
}

/**
 * Writes the markers of the chunks from `from` to `to` (those the head still holds): each message's location, the replies'
 * chunks in the markers of what they answer, and the authors' chunk sets, as an append of those chunks would have.
 * An untagged marker (see markerKeys.ts) gives way to the tagged one. False when a chunk cannot be read.
 */
async function locateChunks(
	archive: Archive,
	scopeKey: string,
	head: ArchiveHead,
	from: number,
	to: number,
	pending: Map<string, Set<number>>
): Promise<boolean> {
	const { store } = archive;
	const numbers: number[] = [];
	for (let chunk = Math.max(from, head.first ?? 0); chunk < Math.min(to, head.chunks); chunk++) numbers.push(chunk);
	const chunks = await store.getManyChecked<StoredMessage[]>(numbers.map((chunk) => Records.archiveChunk(scopeKey, chunk)));
	if (chunks.some(({ damaged }) => damaged)) return false;
	const chunkOf = new Map<string, number>();
	const messages = chunks.flatMap(({ value }, index) => {
		for (const message of value ?? []) chunkOf.set(message.id, numbers[index]!);
		return value ?? [];
	});
	if (messages.length === 0) return true;
	const ids = [...new Set([...messages.map((message) => message.id), ...relatedMarkerIds(messages)])];
	const values = await store.getMany<unknown>(markerKeysToRead(scopeKey, ids));
	const markers = markersRead(values, ids.length);
	const stored = new Map(ids.map((id, index) => [id, markers[index]]));
	const located = appendedMarkers(messages, (id) => chunkOf.get(id)!, stored);
	for (const message of messages) {
		if (message.role !== 'persona' || message.replyTo === undefined) continue;
		if (!isLocation(located.get(message.replyTo) ?? stored.get(message.replyTo)))
			pending.set(message.replyTo, (pending.get(message.replyTo) ?? new Set()).add(chunkOf.get(message.id)!));
	}
	for (const [id, chunks] of pending) {
		const marker = located.get(id);
		if (!marker) continue;
		located.set(id, [...chunks].reduce(withReplyIn, marker));
		pending.delete(id);
	}
	const writes: RecordWrite[] = [...located].map(([id, value]) => ({ key: Records.archiveMarker(scopeKey, id), value, ttlMs: archive.keyTtlMs }));
	await store.setMany(
		writes,
		authorChunks(scopeKey, messages, (id) => chunkOf.get(id)!)
	);
	const untagged = ids.filter((id, index) => values[ids.length + index] !== undefined && located.has(id));
	if (untagged.length > 0) await store.delete(untagged.map((id) => Records.archiveMarkerUntagged(scopeKey, id)));
	return true;
}

/** Rewrites the markers of `ids` that read `from` as `to`, in their tagged form. */
async function rewriteMarkers(
	archive: Archive,
	scopeKey: string,
	ids: readonly string[],
	from: ArchiveMarkerValue,
	to: ArchiveMarkerValue
): Promise<void> {
	for (let at = 0; at < ids.length; at += MARKERS_PER_READ) {
		const batch = ids.slice(at, at + MARKERS_PER_READ);
		const markers = markersRead(await archive.store.getMany<unknown>(markerKeysToRead(scopeKey, batch)), batch.length);
		const writes: RecordWrite<ArchiveMarkerValue>[] = batch
			.filter((_, index) => markers[index] === from)
			.map((id) => ({ key: Records.archiveMarker(scopeKey, id), value: to, ttlMs: archive.keyTtlMs }));
		if (writes.length > 0) await archive.store.setMany(writes);
	}
}
