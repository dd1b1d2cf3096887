import type { ArchiveHead, StoredMessage, Tombstones } from '../schemas';
import { Keys } from '../store/keys';
import { type Archive, ARCHIVE_CHUNK_SIZE, chunkKeys } from './Archive';

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
	const head = await archive.store.get<ArchiveHead>(headKey);
	if (!head) return 0;
	const keys = chunkKeys(scopeKey, head);
	const stored = (await archive.store.getMany<StoredMessage[]>(keys)).flatMap((chunk) => chunk ?? []);
	const kept = stored.filter((message) => !remove(message));
	const gone = stored.filter((message) => remove(message));
	if (gone.length === 0) return 0;
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
