import type { Archive } from './archive';
import { type Listings, live, type ScopeDirectory } from './directory';
import { Keys } from './keys';
import type { MemoryStore } from './store';

/**
 * A moderator's wipe of one guild channel: every short-term entry of the channel (server and user
 * scopes, every persona) and the channel's archives. Message markers stay as tombstones, so the
 * wiped messages are not archived again from a later turn's history.
 */
export async function wipeChannel(
	store: MemoryStore,
	directory: ScopeDirectory,
	archive: Archive,
	serverId: string,
	channelId: string,
	now: number
): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
	const listings = live(await store.get<Listings>(Keys.serverIndex(serverId)), now).filter((listing) => listing.channelId === channelId);
	const serverKeys = listings.filter((listing) => listing.scope === 'server').map((listing) => listing.key);
	const userListings = listings.filter((listing) => listing.scope === 'user');
	let messagesDeleted = 0;
	for (const key of serverKeys) {
		// An emptied archive's head moves to a new epoch, so every process drops its cached index.
		messagesDeleted += await store.lock.run(Keys.archiveHead(key), () => archive.remove(key, () => true));
	}
	const keys = listings.map((listing) => listing.key);
	await store.lock.runAll(keys, () => store.delete(keys));
	await directory.forget(Keys.serverIndex(serverId), keys);
	await Promise.all(userListings.map((listing) => directory.forget(Keys.userIndex(listing.key.split(':')[2]!), [listing.key])));
	return { entriesDeleted: keys.length, messagesDeleted };
}
