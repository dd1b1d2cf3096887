import { expireForgotten } from '../ledger/forgotten';
import { moveIntoPartitions } from '../records/moveIntoPartitions';
import type { SweepParts, SweepResult } from './SweepResult';
import { locateArchives, sweepArchives } from './sweepArchives';
import { sweepAuthors } from './sweepAuthors';
import { sweepShortTerm } from './sweepShortTerm';

/**
 * Deletes what can no longer be served at `now`: expired short-term entries and their listings,
 * archive chunks past retention with their markers, and what was derived from them. It walks the
 * registries, never the keyspace, so its cost follows what is stored, not what ever was.
 */
export async function sweep(parts: SweepParts, now: number): Promise<SweepResult> {
	const started = performance.now();
	const result: SweepResult = {
		entriesDeleted: 0,
		listingsDeleted: 0,
		directoriesDeleted: 0,
		chunksDeleted: 0,
		archivedMessagesDeleted: 0,
		markersDeleted: 0,
		archivesDeleted: 0,
		archivesLocated: 0,
		authorListingsDeleted: 0,
		authorIndexesDeleted: 0,
		forgottenIdsDeleted: 0,
		serversPurged: 0,
		durationMs: 0
	};
	// Ids a process of a version before still writes into the old buckets or sets (while shards are upgraded one by one).
	await parts.registry.adoptBuckets();
	await moveIntoPartitions(parts.registry, parts.ledger.store);
	// Entries first: the author pass looks at what is left of them.
	await sweepShortTerm(parts, now, result);
	const archives = await sweepArchives(parts, now, result);
	await sweepAuthors(parts, now, archives, result);
	result.archivesLocated = await locateArchives(parts, archives.unlocated);
	result.forgottenIdsDeleted = await expireForgotten({ store: parts.ledger.store, registry: parts.registry }, now);
	// After every pass has removed what it found gone: a server whose partitions are left empty costs the next walk nothing.
	await parts.registry.dropEmptyServers();
	// Due purges last: each ends with the SQLite file rewritten, which no later write of this sweep may follow.
	result.serversPurged = (await parts.purges?.runDue(now)) ?? 0;
	result.durationMs = Math.round(performance.now() - started);
	return result;
}
