import type { MessageLedger } from '../ledger/MessageLedger';
import type { Listings, MessagesChange, ShortTermEntry } from '../schemas';
import { DM_SERVER_ID, Keys } from '../store/keys';
import type { BackgroundSummarizer } from './BackgroundSummarizer';
import type { SummarizerCounters } from './SummarizerCounters';

/**
 * Marks stale every background summary of the channel's live scopes (one per persona) that cites
 * one of the changed messages, so it stops serving until it is rebuilt. Returns the entries marked.
 */
export async function markSummariesStale(
	ledger: MessageLedger,
	change: MessagesChange,
	now: () => number
): Promise<{ key: string; entry: ShortTermEntry }[]> {
	const dm = change.serverId === null;
	const listings = await ledger.store.get<Listings>(dm ? Keys.userIndex(change.userId!) : Keys.serverIndex(change.serverId!));
	const keys = Object.values(listings ?? {})
		.filter(
			(listing) =>
				listing.channelId === change.channelId &&
				(dm ? listing.scope === 'user' && listing.serverId === DM_SERVER_ID : listing.scope === 'server')
		)
		.map((listing) => listing.key);
	const changed = new Set(change.messageIds);
	const marked: { key: string; entry: ShortTermEntry }[] = [];
	for (const key of keys) {
		const entry = await ledger.updateEntry(key, now, (current) => {
			const summary = current.backgroundSummary;
			if (!summary || summary.stale || !summary.sourceIds.some((id) => changed.has(id))) return null;
			return { ...current, backgroundSummary: { ...summary, stale: true } };
		});
		if (entry) marked.push({ key, entry });
	}
	return marked;
}

/**
 * Messages were edited or deleted on Discord: every background summary citing one of them is marked
 * stale (the digest serves again), and its scope is queued to be summarized again.
 */
export async function messagesChanged(
	ledger: MessageLedger,
	summarizer: BackgroundSummarizer | null,
	counters: SummarizerCounters,
	change: MessagesChange,
	now: () => number
): Promise<{ summariesMarkedStale: number }> {
	// First, so that an answer citing them which lands while the stored ones are marked is not kept.
	summarizer?.invalidateCiting(change.messageIds);
	const marked = await markSummariesStale(ledger, change, now);
	summarizer?.rebuild(marked);
	counters.markedStale += marked.length;
	return { summariesMarkedStale: marked.length };
}
