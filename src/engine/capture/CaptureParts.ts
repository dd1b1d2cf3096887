import type { MemoryConfig } from '../config';
import type { PendingSources } from '../context/PendingSources';
import type { MemberForgetting } from '../ledger/forgetMember';
import type { ContextSourceRecords } from '../records/contextSourceRecords';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { SettingsRepository } from '../records/SettingsRepository';
import type { ShortTermEntry, SkipReason } from '../schemas';

/** What capture works with. */
export interface CaptureParts {
	config: MemoryConfig;
	ledger: MessageLedger;
	settings: SettingsRepository;
	onSkip: (reason: SkipReason) => void;
	/** The contexts built for turns not yet recorded, and where what a reply's context drew on is kept. */
	sources: { pending: PendingSources; records: ContextSourceRecords };
	/** Forgets a member again, as an erasure made in another process while this one captured their words did. */
	forgetAgain: (userId: string, what: MemberForgetting, now: number) => Promise<void>;
	/** Told of the live scope's entry once it is written (the background summarizer queues from it). */
	onLiveWrite?: (key: string, entry: ShortTermEntry) => void;
}
