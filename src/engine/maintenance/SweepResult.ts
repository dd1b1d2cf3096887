import type { MemoryConfig } from '../config';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { Registry } from '../records/Registry';
import type { ServerPurges } from './ServerPurges';

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
	/**
	 * Archives begun before markers said where their messages are, located by this sweep: forgetting in them then reads
	 * what it forgets, not the whole archive (docs/storage.md, Located archives).
	 */
	archivesLocated: number;
	/** Author-index listings of scopes that no longer hold the author's messages. */
	authorListingsDeleted: number;
	/** Author indexes left empty. */
	authorIndexesDeleted: number;
	/** Ids of deleted or erased messages dropped from their channels' forgotten lists, once nothing could bring them back. */
	forgottenIdsDeleted: number;
	/** Servers the bot was removed from whose purge came due (`MEMORY_SERVER_PURGE_GRACE_HOURS`), and was run. */
	serversPurged: number;
	/** Wall-clock milliseconds. */
	durationMs: number;
}

/** What the sweep works on: the ledger's copies, and the registries that list them. */
export interface SweepParts {
	ledger: MessageLedger;
	registry: Registry;
	config: MemoryConfig;
	/** Purges of servers the bot left, when a grace period delays them. */
	purges?: ServerPurges;
}
