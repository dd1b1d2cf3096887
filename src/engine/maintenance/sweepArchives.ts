import { expireArchive } from '../archive/expireArchive';
import { locateArchive } from '../archive/locateArchive';
import { Records } from '../records/Records';
import type { RegistrySlice } from '../records/Registry';
import { inBatches } from './batches';
import type { SweepParts, SweepResult } from './SweepResult';

const DAY = 86_400_000;

/** What the archive pass learnt, for the author pass. */
export interface ArchiveSweep {
	/** Per scope: the oldest message time its archive still holds, or null when it holds nothing (the author pass adds scopes it finds gone). */
	floors: Map<string, number | null>;
	/** Members' archived messages deleted, by author then scope. */
	deletedByAuthor: Map<string, Map<string, number>>;
	/** The archives kept that are not located (see ArchiveHead.located), for the locating pass. */
	unlocated: string[];
}

/** Deletes every registered archive's chunks past retention (all of them while the archive is off). */
export async function sweepArchives(parts: SweepParts, now: number, result: SweepResult): Promise<ArchiveSweep> {
	const before = now - parts.config.archiveRetentionDays * DAY;
	const swept: ArchiveSweep = { floors: new Map(), deletedByAuthor: new Map(), unlocated: [] };
	for await (const slice of parts.registry.slices('archives')) await sweepSlice(parts, slice, before, swept, result);
	return swept;
}

/**
 * Locates the archives begun before markers held locations (see locateArchive), four at once, each a slice of its chunks
 * at a time; returns how many became located. Once every archive is, a sweep locates nothing and reads no chunk for it.
 */
export async function locateArchives(parts: SweepParts, scopeKeys: readonly string[]): Promise<number> {
	if (parts.ledger.archive.disabled) return 0;
	let located = 0;
	await inBatches(
		scopeKeys,
		async (batch) => {
			for (const done of await Promise.all(batch.map((scopeKey) => locateArchive(parts.ledger.archive, scopeKey)))) if (done) located++;
		},
		4
	);
	return located;
}

/** The archives of one slice of the registry, 16 at once. */
async function sweepSlice(parts: SweepParts, slice: RegistrySlice, before: number, swept: ArchiveSweep, result: SweepResult): Promise<void> {
	await inBatches(
		slice.ids,
		async (scopes) => {
			await Promise.all(
				scopes.map((scopeKey) =>
					// Under the head's lock, as capture appends: the registry id goes before an append can note it again.
					parts.ledger.store.locked([Records.archiveHead(scopeKey)], async () => {
						const expiry = await expireArchive(parts.ledger.archive, scopeKey, before);
						if (expiry.gone) {
							await parts.registry.removeFrom([{ partition: slice.partition, ids: [scopeKey] }]);
							await parts.ledger.channelArchives.unlist(scopeKey);
						}
						swept.floors.set(scopeKey, expiry.floor);
						if (expiry.unlocated) swept.unlocated.push(scopeKey);
						result.chunksDeleted += expiry.chunks;
						result.archivedMessagesDeleted += expiry.messages;
						result.markersDeleted += expiry.markers;
						if (expiry.emptied) result.archivesDeleted++;
						for (const [authorId, count] of Object.entries(expiry.authors)) {
							const scopesOfAuthor = swept.deletedByAuthor.get(authorId) ?? new Map<string, number>();
							swept.deletedByAuthor.set(authorId, scopesOfAuthor.set(scopeKey, count));
						}
					})
				)
			);
		},
		16
	);
}
