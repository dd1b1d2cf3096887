import type { Archive } from '../archive/Archive';
import type { MemoryConfig } from '../config';
import type { MemoryStore } from '../store/MemoryStore';
import type { AuthorIndex } from './AuthorIndex';
import type { ScopeDirectory } from './ScopeDirectory';

/** The parts of the ledger, each holding copies of messages or the indexes that find them. */
export interface LedgerParts {
	store: MemoryStore;
	config: MemoryConfig;
	/** The live scopes' archives and their search indexes. */
	archive: Archive;
	/** Which short-term entries each user, server and guild channel has. */
	directory: ScopeDirectory;
	/** Which live scopes hold each member's words. */
	authors: AuthorIndex;
}
