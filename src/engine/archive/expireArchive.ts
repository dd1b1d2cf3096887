import type { ArchiveHead, StoredMessage, Tombstones } from '../schemas';
import { type RecordKey, type RecordSetChange, Records } from '../records/Records';
import { authorsGoneFrom } from './locations';
import { markerKeysToDelete } from './markerKeys';
import { type Archive, isUnlocated } from './Archive';

/** What {@link expireArchive} deleted. */
export interface ArchiveExpiry {
	chunks: number;
	messages: number;
	markers: number;
	/** The archive holds nothing any more and its head is gone. */
	emptied: boolean;
	/** Nothing of the scope is left (no head, no tombstones): it can leave the registry. */
	gone: boolean;
	/** The oldest message time of the oldest chunk kept (chunks are appended in time order, so nothing older is left); null when nothing is kept. */
	floor: number | null;
	/** Members' messages deleted, by author id. */
	authors: Record<string, number>;
	/** Messages are kept, in an archive that is not located (see ArchiveHead.located). */
	unlocated: boolean;
}

/**
 * Deletes, from the front, every chunk whose newest message is older than `before`, with the
 * markers of its messages, and the tombstoned markers older than `before`. An archive left with
 * nothing loses its head. The head's epoch moves so every process reloads its cached index.
 * Callers hold the scope's head lock, as capture appends under it.
 */
export async function expireArchive(archive: Archive, scopeKey: string, before: number): Promise<ArchiveExpiry> {
	const headKey = Records.archiveHead(scopeKey);
	const tombstonesKey = Records.archiveTombstones(scopeKey);
	const [head, tombstones] = (await archive.store.getMany<unknown>([headKey, tombstonesKey])) as [ArchiveHead?, Tombstones?];
	const expiry: ArchiveExpiry = {
		chunks: 0,
		messages: 0,
		markers: 0,
		emptied: false,
		gone: false,
		floor: null,
		authors: {},
		unlocated: isUnlocated(head)
	};
	const doomed: RecordKey<unknown>[] = [];
	/** The expired chunks leave their authors' chunk sets (see ArchiveHead.located). */
	const setRemoves: RecordSetChange[] = [];
	let first = head?.first ?? 0;
	const end = head?.chunks ?? 0;
	// Chunks are read a few at a time: most sweeps stop at the first one.
	scan: while (first < end) {
		const keys = Array.from({ length: Math.min(4, end - first) }, (_, offset) => Records.archiveChunk(scopeKey, first + offset));
		for (const [index, chunk] of (await archive.store.getMany<StoredMessage[]>(keys)).entries()) {
			if (chunk && chunk.length > 0 && Math.max(...chunk.map((message) => message.ts)) >= before) {
				expiry.floor = Math.min(...chunk.map((message) => message.ts));
				break scan;
			}
			doomed.push(
				keys[index]!,
				...markerKeysToDelete(
					scopeKey,
					(chunk ?? []).map((message) => message.id)
				)
			);
			setRemoves.push(...authorsGoneFrom(scopeKey, first, chunk ?? [], []));
			for (const message of chunk ?? [])
				if (message.role === 'user' && message.authorId) expiry.authors[message.authorId] = (expiry.authors[message.authorId] ?? 0) + 1;
			expiry.chunks++;
			expiry.messages += chunk?.length ?? 0;
			expiry.markers += chunk?.length ?? 0;
			first++;
		}
	}
	const left: Tombstones = {};
	for (const [id, ts] of Object.entries(tombstones ?? {})) {
		if (ts >= before) left[id] = ts;
		else doomed.push(...markerKeysToDelete(scopeKey, [id]));
	}
	const buried = Object.keys(tombstones ?? {}).length - Object.keys(left).length;
	expiry.markers += buried;
	if (!head && !tombstones) return { ...expiry, gone: true };
	if (doomed.length === 0 && !(head && first >= end)) return expiry;

	archive.forgetCached(scopeKey);
	// Past their retention the messages are served nowhere: deleting the chunks before the head cannot show a half archive.
	for (let at = 0; at < doomed.length; at += 500) await archive.store.delete(doomed.slice(at, at + 500));
	await archive.store.removeFromSets(setRemoves);
	const ttlMs = archive.keyTtlMs;
	const remaining = Object.keys(left).length;
	if (buried > 0) {
		if (remaining === 0) await archive.store.delete([tombstonesKey]);
		else await archive.store.set(tombstonesKey, left, ttlMs);
	}
	if (head && first >= end) {
		await archive.store.delete([headKey]);
		expiry.emptied = true;
		expiry.unlocated = false;
	} else if (head && expiry.chunks > 0) {
		await archive.store.set(headKey, { ...head, first, epoch: head.epoch + 1 } satisfies ArchiveHead, ttlMs);
	}
	expiry.gone = (!head || expiry.emptied) && remaining === 0;
	return expiry;
}
