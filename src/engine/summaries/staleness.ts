import type { MessageLedger } from '../ledger/MessageLedger';
import type { MessagesChange, MessagesChangeResult } from '../schemas';
import type { BackgroundSummarizer } from './BackgroundSummarizer';
import type { SummarizerCounters } from './SummarizerCounters';

/**
 * Messages were edited or deleted on Discord: every copy changes (see MessageLedger.changeMessages), and
 * the scopes whose background summary went are queued to be summarized again without them.
 */
export async function messagesChanged(
	ledger: MessageLedger,
	summarizer: BackgroundSummarizer | null,
	counters: SummarizerCounters,
	change: MessagesChange,
	now: () => number
): Promise<MessagesChangeResult> {
	// First, so that an answer citing them which lands while the copies change is not kept.
	summarizer?.invalidateCiting(change.messageIds);
	const { result, summariesDropped } = await ledger.changeMessages(change, now());
	summarizer?.rebuild(summariesDropped);
	counters.markedStale += result.summariesDropped;
	return result;
}
