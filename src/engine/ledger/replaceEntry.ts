import type { ShortTermEntry } from '../schemas';
import { DM_SERVER_ID, Keys } from '../store/keys';
import { entryLifetimeMs } from './entries';
import type { LedgerParts } from './LedgerParts';
import { holdsAnything } from './stripEntry';

/**
 * Stores what is left of an entry after some of its messages went; an entry left with nothing, or past
 * its lifetime without what kept it alive, goes with its listings. Callers hold its lock.
 */
export async function replaceEntry(parts: LedgerParts, key: string, next: ShortTermEntry, now: number): Promise<void> {
	const ttlMs = next.lastUpdated + entryLifetimeMs(next, parts.config) - now;
	if (ttlMs > 0 && holdsAnything(next)) {
		await parts.store.set(key, next, ttlMs);
		await parts.directory.track([{ key, entry: next }], now);
		return;
	}
	await parts.store.delete([key]);
	if (next.scope === 'server') await parts.directory.forget(Keys.serverIndex(next.serverId), [key]);
	if (next.scope === 'user' && next.serverId !== DM_SERVER_ID)
		await parts.directory.forget(Keys.channelIndex(next.serverId, next.channelId), [key]);
	if (next.scope === 'user' && next.userId) await parts.directory.forget(Keys.userIndex(next.userId), [key]);
}
