import type { Archive } from '../archive/Archive';
import type { MemoryConfig } from '../config';
import type { SettingsRepository } from '../records/SettingsRepository';
import type { RecordStore } from '../records/RecordStore';

/** What building a context reads: the store, the archives' search indexes and the settings. */
export interface ContextParts {
	store: RecordStore;
	archive: Archive;
	settings: SettingsRepository;
	config: MemoryConfig;
}
