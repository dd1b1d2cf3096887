import type { MemoryConfig } from '../config';
import type { Listings } from '../ledger/ScopeDirectory';
import { entryLifetimeMs, isExpired } from '../ledger/entries';
import { DM_SERVER_ID, Keys } from '../store/keys';
import type { MemoryStore } from '../store/MemoryStore';
import type { MessagesChange, ShortTermEntry } from '../schemas/types';

/**
 * Marks stale every background summary of the channel's live scopes (one per persona) that cites
 * one of the changed messages, so it stops serving until it is rebuilt. Returns the entries marked.
 */
export async function markSummariesStale(
	store: MemoryStore,
	config: MemoryConfig,
	change: MessagesChange,
	now: number
): Promise<{ key: string; entry: ShortTermEntry }[]> {
	const dm = change.serverId === null;
	const listings = await store.get<Listings>(dm ? Keys.userIndex(change.userId!) : Keys.serverIndex(change.serverId!));
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
		await store.lock.run(key, async () => {
			const entry = await store.get<ShortTermEntry>(key);
			const summary = entry?.backgroundSummary;
			if (!entry || !summary || summary.stale || isExpired(entry, config, now) || !summary.sourceIds.some((id) => changed.has(id))) return;
			const next: ShortTermEntry = { ...entry, backgroundSummary: { ...summary, stale: true } };
			await store.set(key, next, entry.lastUpdated + entryLifetimeMs(next, config) - now);
			marked.push({ key, entry: next });
		});
	}
	return marked;
}
