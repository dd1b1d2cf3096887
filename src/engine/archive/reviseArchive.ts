import { type ArchiveHead, ArchiveMarker, type StoredMessage, type Tombstones } from '../schemas';
import { replyFingerprint } from '../privacy/voices';
import { type RecordKey, Records } from '../records/Records';
import type { RecordWrite } from '../records/RecordStore';
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
		planned.flatMap(({ scopeKey, ids }) => [Records.archiveHead(scopeKey), ...ids.map((id) => Records.archiveMarker(scopeKey, id))])
	);
	let at = 0;
	const touched = planned.flatMap((plan) => {
		const [head, ...markers] = read.slice(at, (at += 1 + plan.ids.length)) as [ArchiveHead | undefined, ...unknown[]];
		// The replies to a deleted message are archived after it: no marker of it, no reply to it either (an edit that took it
		// out left one, see ArchiveMarker). A reply forgotten by its text (`~…`, see replyFingerprint) has no marker to look for.
		const byText = plan.ids.some((id) => id.startsWith('~'));
		if (!head || (!byText && markers.every((marker) => marker === undefined))) return [];
		return [{ ...plan, head, markers, keys: chunkKeys(plan.scopeKey, head) }];
	});
	const chunks = await store.getMany<StoredMessage[]>(touched.flatMap(({ keys }) => keys));

	const results = new Map<string, RevisedArchive>();
	const tombstones = new Map<RecordKey<Tombstones>, StoredMessage[]>();
	const writes: RecordWrite[] = [];
	at = 0;
	for (const { scopeKey, revision, ids, head, markers, keys } of touched) {
		const stored = chunks.slice(at, (at += keys.length));
		const changed = new Set(ids);
		const result: RevisedArchive = { removed: [], edited: 0 };
		const rewritten: RecordWrite[] = [];
		stored.forEach((chunk, index) => {
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
		});
		// A deleted message an edit took out before: its marker becomes its tombstone.
		const buried = ids.filter((id, index) => markers[index] === ArchiveMarker.editedAway && revision.deleted.has(id));
		if (rewritten.length === 0 && buried.length === 0) continue;
		results.set(scopeKey, result);
		archive.forgetCached(scopeKey);
		const dropped = result.removed.filter((message) => revision.dropped.has(message.id));
		// Listed for the sweep, which deletes each marker once past retention: the tombstones, and the markers of messages edited away.
		if (result.removed.length > 0) tombstones.set(Records.archiveTombstones(scopeKey), result.removed);
		writes.push(
			...rewritten,
			...dropped.map((message) => ({ key: Records.archiveMarker(scopeKey, message.id), value: ArchiveMarker.editedAway, ttlMs })),
			...buried.map((id) => ({ key: Records.archiveMarker(scopeKey, id), value: ArchiveMarker.archived, ttlMs })),
			{ key: Records.archiveHead(scopeKey), value: { ...head, epoch: head.epoch + 1 } satisfies ArchiveHead, ttlMs }
		);
	}
	await store.updateMany<Tombstones>([...tombstones.keys()], (key, current) => ({
		value: { ...current, ...Object.fromEntries(tombstones.get(key)!.map((message) => [message.id, message.ts])) },
		ttlMs
	}));
	await store.setMany(writes);
	return revisions.map(({ scopeKey }) => results.get(scopeKey) ?? { removed: [], edited: 0 });
}
