import type { ArchiveHead, StoredMessage, Tombstones } from '../schemas';
import { type RecordKey, type RecordSetChange, Records } from '../records/Records';
import type { RecordWrite } from '../records/RecordStore';
import { type Archive, chunkKeys } from './Archive';
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

/**
 * Rewrites each scope's archive without the messages `remove` picks there, every archive in the same few round trips (their
 * heads, their chunks, the tombstones, the rewrite); returns how many went from each. Only the chunks `within` names for a
 * located archive are read (see ArchiveHead.located), else every chunk; each chunk that held a removed message is
 * rewritten where it is (left empty, deleted), so every marker's location stays true. The heads' epochs move so every
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
	const chunks = await store.getManyChecked<StoredMessage[]>(withHead.flatMap(({ keys }) => keys));

	const ttlMs = archive.keyTtlMs;
	const tombstones = new Map<RecordKey<Tombstones>, StoredMessage[]>();
	const writes: RecordWrite[] = [];
	const doomed: RecordKey<unknown>[] = [];
	const setRemoves: RecordSetChange[] = [];
	let at = 0;
	for (const { scopeKey, head, keys } of withHead) {
		const checked = chunks.slice(at, (at += keys.length));
		const stored = checked.flatMap((chunk) => chunk.value ?? []);
		const gone = stored.filter((message) => remove(message, scopeKey));
		// A chunk that cannot be read may hold the messages: it is written over (or deleted) with the others.
		if (gone.length === 0 && !checked.some((chunk) => chunk.damaged)) continue;
		onRemoved?.(scopeKey, gone);
		removed.set(scopeKey, gone.length);
		archive.forgetCached(scopeKey);
		tombstones.set(Records.archiveTombstones(scopeKey), gone);
		if (archive.disabled) {
			// While the archive is off nothing of it is served or cached: what is left goes too.
			doomed.push(Records.archiveHead(scopeKey), ...chunkKeys(scopeKey, head));
			continue;
		}
		checked.forEach((chunk, index) => {
			if (!chunk.value && !chunk.damaged) return;
			const kept = (chunk.value ?? []).filter((message) => !remove(message, scopeKey));
			if (kept.length === chunk.value?.length) return;
			if (kept.length === 0) doomed.push(keys[index]!);
			else writes.push({ key: keys[index]!, value: kept, ttlMs });
			if (head.located === true) setRemoves.push(...authorsGoneFrom(scopeKey, chunkNumber(keys[index]!), chunk.value ?? [], kept));
		});
		writes.push({ key: Records.archiveHead(scopeKey), value: { ...head, epoch: head.epoch + 1 } satisfies ArchiveHead, ttlMs });
	}
	await store.updateMany<Tombstones>([...tombstones.keys()], (key, current) => ({
		value: { ...current, ...Object.fromEntries(tombstones.get(key)!.map((message) => [message.id, message.ts])) },
		ttlMs
	}));
	await store.setMany(writes);
	await store.delete(doomed);
	await store.removeFromSets(setRemoves);
	return scopeKeys.map((scopeKey) => removed.get(scopeKey) ?? 0);
}

/** The chunk keys of a head that may hold what is removed: those `named` (a located archive's) that the archive holds, else every one. */
function chunksWithin(scopeKey: string, head: ArchiveHead, named: readonly number[] | undefined): RecordKey<StoredMessage[]>[] {
	if (head.located !== true || named === undefined) return chunkKeys(scopeKey, head);
	const first = head.first ?? 0;
	const held = [...new Set(named)].filter((chunk) => chunk >= first && chunk < head.chunks).sort((a, b) => a - b);
	return held.map((chunk) => Records.archiveChunk(scopeKey, chunk));
}
