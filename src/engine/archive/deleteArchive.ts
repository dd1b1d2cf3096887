import type { ArchiveHead, StoredMessage, Tombstones } from '../schemas';
import { Keys } from '../store/keys';
import { type Archive, chunkKeys } from './Archive';

/**
 * Deletes a scope's archive whole: its chunks, the markers of their messages and of those removed before
 * (its tombstones), and its head; every process drops its cached index. Unlike {@link removeFromArchive}
 * it keeps no tombstone: the scope itself is gone (a server's purge). Returns the messages it held.
 * Callers hold the scope's head lock.
 */
export async function deleteArchive(archive: Archive, scopeKey: string): Promise<StoredMessage[]> {
	const headKey = Keys.archiveHead(scopeKey);
	const tombstonesKey = Keys.archiveTombstones(scopeKey);
	const [head, tombstones] = (await archive.store.getMany<unknown>([headKey, tombstonesKey])) as [ArchiveHead?, Tombstones?];
	archive.forgetCached(scopeKey);
	const keys = head ? chunkKeys(scopeKey, head) : await chunksWithoutHead(archive, scopeKey);
	const messages = (await archive.store.getMany<StoredMessage[]>(keys)).flatMap((chunk) => chunk ?? []);
	const ids = [...messages.map((message) => message.id), ...Object.keys(tombstones ?? {})];
	const doomed = [...keys, ...ids.map((id) => Keys.archiveMarker(scopeKey, id)), tombstonesKey, headKey];
	for (let at = 0; at < doomed.length; at += 500) await archive.store.delete(doomed.slice(at, at + 500));
	return messages;
}

/** The chunk keys of an archive whose head is missing or cannot be read: looked for from the first, 16 at a time, until 16 in a row are gone. */
async function chunksWithoutHead(archive: Archive, scopeKey: string): Promise<string[]> {
	const found: string[] = [];
	for (let first = 0; ; first += 16) {
		const keys = Array.from({ length: 16 }, (_, offset) => Keys.archiveChunk(scopeKey, first + offset));
		const chunks = await archive.store.getManyChecked<StoredMessage[]>(keys);
		const here = keys.filter((_, index) => chunks[index]!.value !== undefined || chunks[index]!.damaged);
		if (here.length === 0) return found;
		found.push(...here);
	}
}
