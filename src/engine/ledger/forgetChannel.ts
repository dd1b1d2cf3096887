import { removeFromArchives } from '../archive/removeFromArchive';
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
	const keys = [...serverKeys, ...userKeys];
	// An emptied archive's head moves to a new epoch, so every process drops its cached index.
	const removed = await store.lock.runAll(
		serverKeys.map((key) => Keys.archiveHead(key)),
		() => removeFromArchives(archive, serverKeys, () => true)
	);
	const messagesDeleted = removed.reduce((sum, count) => sum + count, 0);
	await store.lock.runAll(keys, () => store.delete(keys));
	const listings = new Map<string, string[]>([
		[Keys.serverIndex(serverId), serverKeys],
		[Keys.channelIndex(serverId, channelId), userKeys]
	]);
	for (const key of userKeys) {
		const owner = Keys.userIndex(parseScopeKey(key)!.ownerId);
		listings.set(owner, [...(listings.get(owner) ?? []), key]);
	}
	await directory.forgetMany(listings);
	return { entriesDeleted: keys.length, messagesDeleted };
}
