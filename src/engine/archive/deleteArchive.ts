import type { ArchiveHead, StoredMessage, Tombstones } from '../schemas';
import { type RecordKey, Records, type SetKey } from '../records/Records';
import { authorChunks } from './locations';
import { markerKeysToDelete } from './markerKeys';
import { type Archive, chunkKeys } from './Archive';

/** Keys per delete call: one call of a few thousand keys is one statement on every backend (SQLite's json_each, PostgreSQL's `ANY`, Redis' `DEL`). */
const KEYS_PER_DELETE = 5_000;

/** {@link deleteArchives} of one scope. */
export async function deleteArchive(archive: Archive, scopeKey: string): Promise<StoredMessage[]> {
	const [messages] = await deleteArchives(archive, [scopeKey]);
	return messages!;
}

/**
 * Deletes each scope's archive whole: its chunks, the markers of their messages and of those removed before
 * (its tombstones), and its head; every process drops its cached index. Unlike {@link removeFromArchives}
 * it keeps no tombstone: the scope itself is gone (a server's purge). Every archive goes in the same few round
 * trips (heads and tombstones, chunks, deletes). Returns the messages each held. Callers hold the scopes' head locks.
 */
export async function deleteArchives(archive: Archive, scopeKeys: readonly string[]): Promise<StoredMessage[][]> {
	const { store } = archive;
	const headsAndTombstones = await store.getMany<unknown>(scopeKeys.flatMap((key) => [Records.archiveHead(key), Records.archiveTombstones(key)]));
	const keysOf: RecordKey<StoredMessage[]>[][] = [];
	for (const [index, scopeKey] of scopeKeys.entries()) {
		archive.forgetCached(scopeKey);
		const head = headsAndTombstones[index * 2] as ArchiveHead | undefined;
		keysOf.push(head ? chunkKeys(scopeKey, head) : await chunksWithoutHead(archive, scopeKey));
	}
	const chunks = await store.getMany<StoredMessage[]>(keysOf.flat());
	const doomed: RecordKey<unknown>[] = [];
	const sets: SetKey[] = [];
	const held: StoredMessage[][] = [];
	let at = 0;
	for (const [index, scopeKey] of scopeKeys.entries()) {
		const keys = keysOf[index]!;
		const messages = chunks.slice(at, (at += keys.length)).flatMap((chunk) => chunk ?? []);
		const tombstones = headsAndTombstones[index * 2 + 1] as Tombstones | undefined;
		const ids = [...messages.map((message) => message.id), ...Object.keys(tombstones ?? {})];
		doomed.push(...keys, ...markerKeysToDelete(scopeKey, ids), Records.archiveTombstones(scopeKey), Records.archiveHead(scopeKey));
		// Every author whose words it holds has a chunk set there (a located archive's; nothing to delete otherwise).
		sets.push(...authorChunks(scopeKey, messages, () => 0).map(({ key }) => key));
		held.push(messages);
	}
	for (let from = 0; from < doomed.length; from += KEYS_PER_DELETE) await store.delete(doomed.slice(from, from + KEYS_PER_DELETE));
	await store.deleteSets(sets);
	return held;
}

/** The chunk keys of an archive whose head is missing or cannot be read: looked for from the first, 16 at a time, until 16 in a row are gone. */
async function chunksWithoutHead(archive: Archive, scopeKey: string): Promise<RecordKey<StoredMessage[]>[]> {
	const found: RecordKey<StoredMessage[]>[] = [];
	for (let first = 0; ; first += 16) {
		const keys = Array.from({ length: 16 }, (_, offset) => Records.archiveChunk(scopeKey, first + offset));
		const chunks = await archive.store.getManyChecked<StoredMessage[]>(keys);
		const here = keys.filter((_, index) => chunks[index]!.value !== undefined || chunks[index]!.damaged);
		if (here.length === 0) return found;
		found.push(...here);
	}
}
