import { type ArchiveHead, ArchiveMarker, type StoredMessage, type Tombstones } from '../schemas';
import { replyFingerprint } from '../privacy/voices';
import { type RecordKey, type RecordSetChange, Records } from '../records/Records';
import type { RecordWrite } from '../records/RecordStore';
import { type Archive, chunkKeys, heldChunkKeys } from './Archive';
import { authorsGoneFrom, chunkNumber, chunksOf, editedAway, editedAwayMarker } from './locations';
import { markerKeysToRead, markersRead } from './markerKeys';

/** How to change some messages of an archive: by id, what each becomes. */
export interface ArchiveRevision {
	/** Removed, their markers kept as tombstones so no later turn archives them again (deleted on Discord). */
	deleted: ReadonlySet<string>;
	/** Removed with their markers, so the next turn that carries them archives them again (edited, new text unknown). */
	dropped: ReadonlySet<string>;
	/** The new text of edited messages. */
	texts: ReadonlyMap<string, string>;
}

/**
 * Whether a revision removes `message`: a deleted or dropped message, and a persona reply to a deleted
 * message, which answered it and often repeats it.
 */
export function removes(revision: ArchiveRevision, message: StoredMessage): boolean {
	if (revision.deleted.has(message.id) || revision.dropped.has(message.id)) return true;
	// A reply without a host id, forgotten by its text (see replyFingerprint).
	const fingerprint = replyFingerprint(message);
	if (fingerprint !== null && revision.deleted.has(fingerprint)) return true;
	return message.role === 'persona' && message.replyTo !== undefined && revision.deleted.has(message.replyTo);
}

/** What {@link reviseArchive} changed. */
export interface RevisedArchive {
	removed: StoredMessage[];
	edited: number;
	/** The ids of the revision this archive accounts for: found in its chunks, or removed from it before (a tombstone). */
	accounted: string[];
	/** The messages of the revision found in the archive (removed, edited or left), as they were. */
	found: StoredMessage[];
}

function nothingRevised(): RevisedArchive {
	return { removed: [], edited: 0, accounted: [], found: [] };
}

/**
 * Applies a revision to one scope's archive (see {@link reviseArchives}). Callers hold the scope's head lock, as capture
 * appends under it.
 */
export async function reviseArchive(archive: Archive, scopeKey: string, revision: ArchiveRevision): Promise<RevisedArchive> {
	return (await reviseArchives(archive, [{ scopeKey, revision }]))[0]!;
}

/**
 * Applies a revision to each scope's archive, every archive in the same few round trips (heads and markers, chunks,
 * tombstones, the rewrite), rewriting only the chunks that hold a changed message; the heads' epochs move so every
 * process reloads its cached search index. The markers are read first: an archive that never took these messages is not
 * read at all, whatever its size. Callers hold the scopes' head locks, as capture appends under them.
 */
export async function reviseArchives(
	archive: Archive,
	revisions: readonly { scopeKey: string; revision: ArchiveRevision }[]
): Promise<RevisedArchive[]> {
	const { store } = archive;
	const ttlMs = archive.keyTtlMs;
	const planned = revisions.map(({ scopeKey, revision }) => ({
		scopeKey,
		revision,
		ids: [...revision.deleted, ...revision.dropped, ...revision.texts.keys()]
	}));
	const read = await store.getMany<unknown>(
		planned.flatMap(({ scopeKey, ids }) => [Records.archiveHead(scopeKey), ...markerKeysToRead(scopeKey, ids)])
	);
	const results = new Map<string, RevisedArchive>();
	let at = 0;
	const touched = planned.flatMap((plan) => {
		const [head, ...markerValues] = read.slice(at, (at += 1 + 2 * plan.ids.length)) as [ArchiveHead | undefined, ...unknown[]];
		const markers = markersRead(markerValues, plan.ids.length);
		if (!head) return [];
		const keys = chunksToRead(plan.scopeKey, head, plan.ids, markers);
		const buries = plan.ids.some((id, index) => editedAway(markers[index]) && plan.revision.deleted.has(id));
		if (keys.length > 0 || buries) return [{ ...plan, head, markers, keys }];
		const removedBefore = plan.ids.filter((_, index) => markers[index] === ArchiveMarker.removed);
		if (head.located === true) results.set(plan.scopeKey, { ...nothingRevised(), accounted: removedBefore });
		return [];
	});
	const chunks = await store.getMany<StoredMessage[]>(touched.flatMap(({ keys }) => keys));

	const tombstones = new Map<RecordKey<Tombstones>, StoredMessage[]>();
	const writes: RecordWrite[] = [];
	const setRemoves: RecordSetChange[] = [];
	at = 0;
	for (const { scopeKey, revision, ids, head, markers, keys } of touched) {
		const stored = chunks.slice(at, (at += keys.length));
		const changed = new Set(ids);
		const result = nothingRevised();
		const rewritten: RecordWrite[] = [];
		const located = head.located === true;
		if (located) result.accounted.push(...ids.filter((_, index) => markers[index] === ArchiveMarker.removed));
		stored.forEach((chunk, index) => {
			for (const message of chunk ?? []) if (changed.has(message.id) || removes(revision, message)) result.found.push(message);
			if (!chunk?.some((message) => changed.has(message.id) || removes(revision, message))) return;
			const revised = chunk.flatMap((message) => {
				if (removes(revision, message)) {
					result.removed.push(message);
					return [];
				}
				const text = revision.texts.get(message.id);
				if (text === undefined || text === message.text) return [message];
				result.edited++;
				return [{ ...message, text }];
			});
			rewritten.push({ key: keys[index]!, value: revised, ttlMs });
			if (head.located === true) setRemoves.push(...authorsGoneFrom(scopeKey, chunkNumber(keys[index]!), chunk, revised));
		});
		// A deleted message an edit took out before: its marker becomes its tombstone.
		const buried = ids.filter((id, index) => editedAway(markers[index]) && revision.deleted.has(id));
		const markerOf = new Map(ids.map((id, index) => [id, markers[index]]));
		// Not the buried ones: what of them the entries may hold, nothing here says.
		if (located) result.accounted.push(...result.found.map((message) => message.id));
		results.set(scopeKey, result);
		if (rewritten.length === 0 && buried.length === 0) continue;
		archive.forgetCached(scopeKey);
		const dropped = result.removed.filter((message) => revision.dropped.has(message.id));
		// In a located archive a removed message's marker becomes its tombstone, so that a later deletion of it reads nothing.
		const tombstoned = located ? result.removed.filter((message) => !revision.dropped.has(message.id)) : [];
		// Listed for the sweep, which deletes each marker once past retention: the tombstones, and the markers of messages edited away.
		if (result.removed.length > 0) tombstones.set(Records.archiveTombstones(scopeKey), result.removed);
		writes.push(
			...rewritten,
			...dropped.map((message) => ({
				key: Records.archiveMarker(scopeKey, message.id),
				value: editedAwayMarker(markerOf.get(message.id), located),
				ttlMs
			})),
			...buried.map((id) => ({
				key: Records.archiveMarker(scopeKey, id),
				value: located ? ArchiveMarker.removed : ArchiveMarker.archived,
				ttlMs
			})),
			...tombstoned.map((message) => ({ key: Records.archiveMarker(scopeKey, message.id), value: ArchiveMarker.removed, ttlMs })),
			{ key: Records.archiveHead(scopeKey), value: { ...head, epoch: head.epoch + 1 } satisfies ArchiveHead, ttlMs }
		);
	}
	// Three independent writes, at once: a round trip each on a server store.
	await Promise.all([
		store.updateMany<Tombstones>([...tombstones.keys()], (key, current) => ({
			value: { ...current, ...Object.fromEntries(tombstones.get(key)!.map((message) => [message.id, message.ts])) },
			ttlMs
		})),
		store.setMany(writes),
		store.removeFromSets(setRemoves)
	]);
	return revisions.map(({ scopeKey }) => results.get(scopeKey) ?? nothingRevised());
}

/**
 * The chunks a revision of `ids` reads: in a located archive, those their markers name (see ArchiveLocation), whatever
 * the archive's size; else every chunk, when any of them was archived there. The replies to a deleted message are
 * archived after it: no marker of it, no reply to it either (an edit that took it out left one). A reply forgotten by
 * its text (`~…`, see replyFingerprint) has a marker only in a located archive.
 */
function chunksToRead(scopeKey: string, head: ArchiveHead, ids: readonly string[], markers: readonly unknown[]): RecordKey<StoredMessage[]>[] {
	const named = head.located === true ? markers.map(chunksOf) : [null];
	if (named.every((chunks) => chunks !== null)) return heldChunkKeys(scopeKey, head, named.flat());
	const byText = ids.some((id) => id.startsWith('~'));
	return byText || markers.some((marker) => marker !== undefined) ? chunkKeys(scopeKey, head) : [];
}
