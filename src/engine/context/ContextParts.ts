import type { Archive } from '../archive/Archive';
import type { MemoryConfig } from '../config';
import type { SettingsRepository } from '../records/SettingsRepository';
import type { MemoryStore } from '../store/MemoryStore';

/** What building a context reads: the store, the archives' search indexes and the settings. */
export interface ContextParts {
	store: MemoryStore;
	archive: Archive;
	settings: SettingsRepository;
	config: MemoryConfig;
}
