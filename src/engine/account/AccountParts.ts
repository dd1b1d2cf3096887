import type { MemoryConfig } from '../config';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { ContextSourceRecords } from '../records/contextSourceRecords';
import type { SettingsRepository } from '../records/SettingsRepository';
import type { RecordStore } from '../records/RecordStore';

/** What the `/session` operations work with: the ledger that knows every copy, the settings, and a way to wait for captures. */
export interface AccountParts {
	store: RecordStore;
	config: MemoryConfig;
	ledger: MessageLedger;
	settings: SettingsRepository;
	/** What each persona reply's context drew on. */
	sources: ContextSourceRecords;
	/** Resolves once every capture started before the call has finished. */
	settled: () => Promise<void>;
}
