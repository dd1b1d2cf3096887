import type { Archive } from '../archive/Archive';
import type { ChannelArchives } from '../archive/ChannelArchives';
import type { MemoryConfig } from '../config';
import type { RecordStore } from '../records/RecordStore';
import type { Registry } from '../records/Registry';
import type { AuthorIndex } from './AuthorIndex';
import type { ScopeDirectory } from './ScopeDirectory';

/** The parts of the ledger, each holding copies of messages or the indexes that find them. */
export interface LedgerParts {
	store: RecordStore;
	config: MemoryConfig;
	/** The live scopes' archives and their search indexes. */
	archive: Archive;
	/** Which live scopes of each channel have an archive. */
	channelArchives: ChannelArchives;
	/** Which short-term entries each user, server and guild channel has. */
	directory: ScopeDirectory;
	/** Which live scopes hold each member's words. */
	authors: AuthorIndex;
	/** The ids the sweep walks (here: the channels with a forgotten list). */
	registry: Registry;
}
