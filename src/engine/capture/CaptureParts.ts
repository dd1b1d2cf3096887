import type { MemoryConfig } from '../config';
import type { MemberForgetting } from '../ledger/forgetMember';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { SettingsRepository } from '../records/SettingsRepository';
import type { ShortTermEntry, SkipReason } from '../schemas';

/** What capture works with. */
export interface CaptureParts {
	config: MemoryConfig;
	ledger: MessageLedger;
	settings: SettingsRepository;
	onSkip: (reason: SkipReason) => void;
	/** Forgets a member again, as an erasure made in another process while this one captured their words did. */
	forgetAgain: (userId: string, what: MemberForgetting, now: number) => Promise<void>;
	/** Told of the live scope's entry once it is written (the background summarizer queues from it). */
	onLiveWrite?: (key: string, entry: ShortTermEntry) => void;
}
