import type { MemoryConfig } from '../config';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { SettingsRepository } from '../privacy/SettingsRepository';
import type { ShortTermEntry, SkipReason } from '../schemas';

/** What capture works with. */
export interface CaptureParts {
	config: MemoryConfig;
	ledger: MessageLedger;
	settings: SettingsRepository;
	onSkip: (reason: SkipReason) => void;
	/** Told of the live scope's entry once it is written (the background summarizer queues from it). */
	onLiveWrite?: (key: string, entry: ShortTermEntry) => void;
}
