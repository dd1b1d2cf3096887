import type { ArchiveHead, StoredMessage, Tombstones } from '../schemas';
import { Keys } from '../store/keys';
import { type Archive, ARCHIVE_CHUNK_SIZE, chunkKeys } from './Archive';
import { deleteArchive } from './deleteArchive';

/**
 * Rewrites the scope's archive without the messages `remove` picks; returns how many went.
 * The head's epoch moves so every process reloads its cached index, and the messages' markers
 * stay as tombstones (listed for the sweep) so a later turn's history does not archive them again.
 * Callers hold the scope's head lock, as capture appends under it.
 */
export async function removeFromArchive(
	archive: Archive,
	scopeKey: string,
	remove: (message: StoredMessage) => boolean,
	onRemoved?: (messages: readonly StoredMessage[]) => void
): Promise<number> {
	const headKey = Keys.archiveHead(scopeKey);
	const { value: head, damaged: headDamaged } = await archive.store.getChecked<ArchiveHead>(headKey);
	if (!head) {
		if (!headDamaged) return 0;
		// An archive whose head cannot be read serves nobody, and its chunks may hold anything: all of it goes.
		const removed = await deleteArchive(archive, scopeKey);
		onRemoved?.(removed);
		return removed.length;
	}
	const keys = chunkKeys(scopeKey, head);
	const checked = await archive.store.getManyChecked<StoredMessage[]>(keys);
	const stored = checked.flatMap((chunk) => chunk.value ?? []);
	const kept = stored.filter((message) => !remove(message));
	const gone = stored.filter((message) => remove(message));
	// A chunk that cannot be read may hold the messages: it is written over (or deleted) with the others.
	if (gone.length === 0 && !checked.some((chunk) => chunk.damaged)) return 0;
	onRemoved?.(gone);

	archive.forgetCached(scopeKey);
	const ttlMs = archive.keyTtlMs;
	await archive.store.update<Tombstones>(Keys.archiveTombstones(scopeKey), (current) => ({
		value: { ...current, ...Object.fromEntries(gone.map((message) => [message.id, message.ts])) },
		ttlMs
	}));
	if (archive.disabled) {
		// While the archive is off nothing of it is served or cached: what is left goes too.
		await archive.store.delete([headKey, ...keys]);
		return gone.length;
	}
	const first = head.first ?? 0;
	const chunks: StoredMessage[][] = [];
	for (let at = 0; at < kept.length; at += ARCHIVE_CHUNK_SIZE) chunks.push(kept.slice(at, at + ARCHIVE_CHUNK_SIZE));
	await archive.store.setMany(chunks.map((chunk, index) => ({ key: keys[index]!, value: chunk, ttlMs })));
	await archive.store.set(headKey, { chunks: first + chunks.length, count: head.count, epoch: head.epoch + 1, first } satisfies ArchiveHead, ttlMs);
	await archive.store.delete(keys.slice(chunks.length));
	return gone.length;
}
