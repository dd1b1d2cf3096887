import { type ArchiveHead, ArchiveMarker, type StoredMessage, type Tombstones } from '../schemas';
import { replyFingerprint } from '../privacy/voices';
import { Keys } from '../store/keys';
import { type Archive, chunkKeys } from './Archive';

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
}

/**
 * Applies a revision to one scope's archive, rewriting only the chunks that hold a changed message; the
 * head's epoch moves so every process reloads its cached search index. The markers are read first: an
 * archive that never took these messages is not read at all, whatever its size. Callers hold the scope's
 * head lock, as capture appends under it.
 */
export async function reviseArchive(archive: Archive, scopeKey: string, revision: ArchiveRevision): Promise<RevisedArchive> {
	const ids = [...revision.deleted, ...revision.dropped, ...revision.texts.keys()];
	const changed = new Set(ids);
	const headKey = Keys.archiveHead(scopeKey);
	const [head, ...markers] = (await archive.store.getMany<unknown>([headKey, ...ids.map((id) => Keys.archiveMarker(scopeKey, id))])) as [
		ArchiveHead | undefined,
		...unknown[]
	];
	const unchanged: RevisedArchive = { removed: [], edited: 0 };
	// The replies to a deleted message are archived after it: no marker of it, no reply to it either (an edit that took it
	// out left one, see ArchiveMarker). A reply forgotten by its text (`~…`, see replyFingerprint) has no marker to look for.
	const byText = ids.some((id) => id.startsWith('~'));
	if (!head || (!byText && markers.every((marker) => marker === undefined))) return unchanged;

	const keys = chunkKeys(scopeKey, head);
	const chunks = await archive.store.getMany<StoredMessage[]>(keys);
	const result: RevisedArchive = { removed: [], edited: 0 };
	const writes: { key: string; value: StoredMessage[]; ttlMs: number }[] = [];
	chunks.forEach((chunk, index) => {
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
		writes.push({ key: keys[index]!, value: revised, ttlMs: archive.keyTtlMs });
	});
	// A deleted message an edit took out before: its marker becomes its tombstone.
	const buried = ids.filter((id, index) => markers[index] === ArchiveMarker.editedAway && revision.deleted.has(id));
	if (writes.length === 0 && buried.length === 0) return unchanged;

	archive.forgetCached(scopeKey);
	const dropped = result.removed.filter((message) => revision.dropped.has(message.id));
	const deleted = result.removed.filter((message) => !revision.dropped.has(message.id));
	// Listed for the sweep, which deletes each marker once past retention: the tombstones, and the markers of messages edited away.
	const listed = [...deleted, ...dropped];
	if (listed.length > 0)
		await archive.store.update<Tombstones>(Keys.archiveTombstones(scopeKey), (current) => ({
			value: { ...current, ...Object.fromEntries(listed.map((message) => [message.id, message.ts])) },
			ttlMs: archive.keyTtlMs
		}));
	const ttlMs = archive.keyTtlMs;
	await archive.store.setMany([
		...writes,
		...dropped.map((message) => ({ key: Keys.archiveMarker(scopeKey, message.id), value: ArchiveMarker.editedAway, ttlMs })),
		...buried.map((id) => ({ key: Keys.archiveMarker(scopeKey, id), value: ArchiveMarker.archived, ttlMs })),
		{ key: headKey, value: { ...head, epoch: head.epoch + 1 } satisfies ArchiveHead, ttlMs }
	]);
	return result;
}
