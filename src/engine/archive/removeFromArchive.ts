import { type ArchiveHead, ArchiveMarker, type StoredMessage, type Tombstones } from '../schemas';
import { type RecordKey, type RecordSetChange, Records } from '../records/Records';
import type { RecordWrite } from '../records/RecordStore';
import { type Archive, chunkKeys, heldChunkKeys } from './Archive';
import { deleteArchive } from './deleteArchive';
import { authorsGoneFrom, chunkNumber } from './locations';

/**
 * Rewrites the scope's archive without the messages `remove` picks; returns how many went (see {@link removeFromArchives}).
 * Callers hold the scope's head lock, as capture appends under it.
 */
export async function removeFromArchive(
	archive: Archive,
	scopeKey: string,
	remove: (message: StoredMessage) => boolean,
	onRemoved?: (messages: readonly StoredMessage[]) => void
): Promise<number> {
	const [removed] = await removeFromArchives(
		archive,
		[scopeKey],
		(message) => remove(message),
		(_, messages) => onRemoved?.(messages)
	);
	return removed!;
}

/** Chunks read, changed and written at a time by {@link removeFromArchives}. */
const CHUNKS_PER_SLICE = 16;

/**
 * Rewrites each scope's archive without the messages `remove` picks there, every archive in the same few round trips (their
 * heads, their chunks a slice at a time, the tombstones, the heads); returns how many went from each. Only the chunks `within` names for a
 * located archive are read (see ArchiveHead.located), else every chunk; each chunk that held a removed message is
 * rewritten where it is (left empty if nothing stays), so every marker's location stays true. The heads' epochs move so every
 * process reloads its cached index, and the messages' markers stay as tombstones (listed for the sweep) so a later
 * turn's history does not archive them again. An archive whose head cannot be read serves nobody, and its chunks may
 * hold anything: all of it goes. Callers hold the scopes' head locks, as capture appends under them.
 */
export async function removeFromArchives(
	archive: Archive,
	scopeKeys: readonly string[],
	remove: (message: StoredMessage, scopeKey: string) => boolean,
	onRemoved?: (scopeKey: string, messages: readonly StoredMessage[]) => void,
	within?: ReadonlyMap<string, readonly number[]>
): Promise<number[]> {
	const { store } = archive;
	const removed = new Map<string, number>();
	const heads = await store.getManyChecked<ArchiveHead>(scopeKeys.map((key) => Records.archiveHead(key)));
	const withHead: { scopeKey: string; head: ArchiveHead; keys: RecordKey<StoredMessage[]>[] }[] = [];
	for (const [index, scopeKey] of scopeKeys.entries()) {
		const { value: head, damaged } = heads[index]!;
		if (head) withHead.push({ scopeKey, head, keys: chunksWithin(scopeKey, head, within?.get(scopeKey)) });
		else if (damaged) {
			const messages = await deleteArchive(archive, scopeKey);
			onRemoved?.(scopeKey, messages);
			removed.set(scopeKey, messages.length);
		}
	}
	const ttlMs = archive.keyTtlMs;
	/** What went from each archive, and whether a chunk of it could not be read. */
	const found = new Map<string, { gone: StoredMessage[]; damaged: boolean }>();
	const work = withHead.flatMap(({ scopeKey, head, keys }) => keys.map((key) => ({ scopeKey, head, key })));
	// A slice at a time, each landing before the next is read: parsing and writing a member's every chunk at once held the
	// event loop for as long as they took.
	for (let from = 0; from < work.length; from += CHUNKS_PER_SLICE) {
		const slice = work.slice(from, from + CHUNKS_PER_SLICE);
		const checked = await store.getManyChecked<StoredMessage[]>(slice.map(({ key }) => key));
		const writes: RecordWrite[] = [];
		const setRemoves: RecordSetChange[] = [];
		slice.forEach(({ scopeKey, head, key }, index) => {
			const chunk = checked[index]!;
			if (!chunk.value && !chunk.damaged) return;
			const kept = (chunk.value ?? []).filter((message) => !remove(message, scopeKey));
			// A chunk that cannot be read may hold the messages: it is written over.
			if (kept.length === chunk.value?.length) return;
			const scope = found.get(scopeKey) ?? { gone: [], damaged: false };
			found.set(scopeKey, scope);
			const gone = (chunk.value ?? []).filter((message) => remove(message, scopeKey));
			scope.gone.push(...gone);
			scope.damaged ||= chunk.damaged;
			// While the archive is off, what is left of it goes whole below.
			if (archive.disabled) return;
			// An emptied chunk stays, empty, so the chunks a head names are there (the sweep deletes it in its turn).
			writes.push({ key, value: kept, ttlMs });
			if (head.located !== true) return;
			setRemoves.push(...authorsGoneFrom(scopeKey, chunkNumber(key), chunk.value ?? [], kept));
			// Their markers become tombstones: a later deletion of them (the erasure's own, of the replies) reads nothing.
			writes.push(...gone.map((message) => ({ key: Records.archiveMarker(scopeKey, message.id), value: ArchiveMarker.removed, ttlMs })));
		});
		await store.setMany(writes);
		await store.removeFromSets(setRemoves);
	}

	const tombstones = new Map<RecordKey<Tombstones>, StoredMessage[]>();
	const nextHeads: RecordWrite[] = [];
	const doomed: RecordKey<unknown>[] = [];
	for (const { scopeKey, head } of withHead) {
		const { gone, damaged } = found.get(scopeKey) ?? { gone: [], damaged: false };
		if (gone.length === 0 && !damaged) continue;
		onRemoved?.(scopeKey, gone);
		removed.set(scopeKey, gone.length);
		archive.forgetCached(scopeKey);
		tombstones.set(Records.archiveTombstones(scopeKey), gone);
		// While the archive is off nothing of it is served or cached: what is left goes too.
		if (archive.disabled) doomed.push(Records.archiveHead(scopeKey), ...chunkKeys(scopeKey, head));
		else nextHeads.push({ key: Records.archiveHead(scopeKey), value: { ...head, epoch: head.epoch + 1 } satisfies ArchiveHead, ttlMs });
	}
	await store.updateMany<Tombstones>([...tombstones.keys()], (key, current) => ({
		value: { ...current, ...Object.fromEntries(tombstones.get(key)!.map((message) => [message.id, message.ts])) },
		ttlMs
	}));
	// Last, so that no process caches an index of chunks still being rewritten under the new epoch.
	await store.setMany(nextHeads);
	await store.delete(doomed);
	return scopeKeys.map((scopeKey) => removed.get(scopeKey) ?? 0);
}

/** The chunk keys of a head that may hold what is removed: those `named` (a located archive's) that the archive holds, else every one. */
function chunksWithin(scopeKey: string, head: ArchiveHead, named: readonly number[] | undefined): RecordKey<StoredMessage[]>[] {
	return head.located !== true || named === undefined ? chunkKeys(scopeKey, head) : heldChunkKeys(scopeKey, head, named);
}
