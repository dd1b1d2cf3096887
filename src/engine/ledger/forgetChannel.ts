import { removeFromArchive } from '../archive/removeFromArchive';
import type { Listings } from '../schemas';
import { Keys, parseScopeKey } from '../store/keys';
import type { LedgerParts } from './LedgerParts';
import { live } from './ScopeDirectory';

/**
 * Every short-term entry of one guild channel (server and user scopes, every persona), the channel's
 * archives and their listings. Message markers stay as tombstones, so the wiped messages are not
 * archived again from a later turn's history.
 */
export async function forgetChannel(
	parts: LedgerParts,
	serverId: string,
	channelId: string,
	now: number
): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
	const { store, archive, directory } = parts;
	const [serverListings, channelListings] = await store.getMany<Listings>([Keys.serverIndex(serverId), Keys.channelIndex(serverId, channelId)]);
	const serverKeys = live(serverListings, now)
		.filter((listing) => listing.channelId === channelId && listing.scope === 'server')
		.map((listing) => listing.key);
	const userKeys = live(channelListings, now)
		.filter((listing) => listing.scope === 'user')
		.map((listing) => listing.key);
	let messagesDeleted = 0;
	for (const key of serverKeys) {
		// An emptied archive's head moves to a new epoch, so every process drops its cached index.
		messagesDeleted += await store.lock.run(Keys.archiveHead(key), () => removeFromArchive(archive, key, () => true));
	}
	const keys = [...serverKeys, ...userKeys];
	await store.lock.runAll(keys, () => store.delete(keys));
	await directory.forget(Keys.serverIndex(serverId), serverKeys);
	await directory.forget(Keys.channelIndex(serverId, channelId), userKeys);
	await Promise.all(userKeys.map((key) => directory.forget(Keys.userIndex(parseScopeKey(key)!.ownerId), [key])));
	return { entriesDeleted: keys.length, messagesDeleted };
}
