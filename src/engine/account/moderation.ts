import type { Archive } from '../archive/Archive';
import { type Listings, live, type ScopeDirectory } from '../ledger/ScopeDirectory';
import { Keys } from '../store/keys';
import type { MemoryStore } from '../store/MemoryStore';

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
	const [serverListings, channelListings] = await store.getMany<Listings>([Keys.serverIndex(serverId), Keys.channelIndex(serverId, channelId)]);
	const serverKeys = live(serverListings, now)
		.filter((listing) => listing.channelId === channelId && listing.scope === 'server')
		.map((listing) => listing.key);
	const userListings = live(channelListings, now).filter((listing) => listing.scope === 'user');
	let messagesDeleted = 0;
	for (const key of serverKeys) {
		// An emptied archive's head moves to a new epoch, so every process drops its cached index.
		messagesDeleted += await store.lock.run(Keys.archiveHead(key), () => archive.remove(key, () => true));
	}
	const keys = [...serverKeys, ...userListings.map((listing) => listing.key)];
	await store.lock.runAll(keys, () => store.delete(keys));
	await directory.forget(Keys.serverIndex(serverId), serverKeys);
	await directory.forget(
		Keys.channelIndex(serverId, channelId),
		userListings.map((listing) => listing.key)
	);
	await Promise.all(userListings.map((listing) => directory.forget(Keys.userIndex(listing.key.split(':')[2]!), [listing.key])));
	return { entriesDeleted: keys.length, messagesDeleted };
}
