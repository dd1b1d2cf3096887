import type { Archive } from '../archive/Archive';
import type { AuthorIndex } from '../ledger/AuthorIndex';
import type { MemoryConfig } from '../config';
import type { ScopeDirectory } from '../ledger/ScopeDirectory';
import type { MemoryStore } from '../store/MemoryStore';
import { sweepArchives } from './sweepArchives';
import { sweepAuthors } from './sweepAuthors';
import type { Registry } from '../store/Registry';
import { sweepShortTerm } from './sweepShortTerm';

/** What one sweep deleted, and how long it took. */
export interface SweepResult {
	/** Expired short-term entries. */
	entriesDeleted: number;
	/** Directory listings of those entries (`index:user:…`, `index:server:…`). */
	listingsDeleted: number;
	/** Directories left empty. */
	directoriesDeleted: number;
	/** Archive chunks whose newest message was past retention. */
	chunksDeleted: number;
	/** Archived messages in those chunks. */
	archivedMessagesDeleted: number;
	/** Per-message markers: of those messages, and of messages erased earlier once past retention. */
	markersDeleted: number;
	/** Archives left empty, deleted with their head. */
	archivesDeleted: number;
	/** Author-index listings of scopes that no longer hold the author's messages. */
	authorListingsDeleted: number;
	/** Author indexes left empty. */
	authorIndexesDeleted: number;
	/** Wall-clock milliseconds. */
	durationMs: number;
}

/** What the sweep works on. */
export interface SweepDependencies {
	store: MemoryStore;
	archive: Archive;
	directory: ScopeDirectory;
	authors: AuthorIndex;
	registry: Registry;
	config: () => MemoryConfig;
}

/**
 * Deletes what can no longer be served at `now`: expired short-term entries and their listings,
 * archive chunks past retention with their markers, and what was derived from them. It walks the
 * registries, never the keyspace, so its cost follows what is stored, not what ever was.
 */
export async function sweep(deps: SweepDependencies, now: number): Promise<SweepResult> {
	const started = performance.now();
	const result: SweepResult = {
		entriesDeleted: 0,
		listingsDeleted: 0,
		directoriesDeleted: 0,
		chunksDeleted: 0,
		archivedMessagesDeleted: 0,
		markersDeleted: 0,
		archivesDeleted: 0,
		authorListingsDeleted: 0,
		authorIndexesDeleted: 0,
		durationMs: 0
	};
	// Entries first: the author pass looks at what is left of them.
	await sweepShortTerm(deps, now, result);
	const archives = await sweepArchives(deps, now, result);
	await sweepAuthors(deps, now, archives, result);
	result.durationMs = Math.round(performance.now() - started);
	return result;
}
