import { removeFromArchives } from '../archive/removeFromArchive';
import type { ChannelArchiveListings, Listings } from '../schemas';
import { type RecordKey, Records } from '../records/Records';
import { parseScopeKey } from '../records/scopes';
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
	const [serverListings, channelListings, archiveList] = (await store.getMany<unknown>([
		Records.serverDirectory(serverId),
		Records.channelDirectory(serverId, channelId),
		Records.channelArchives(serverId, channelId)
	])) as [Listings?, Listings?, ChannelArchiveListings?];
	const serverKeys = live(serverListings, now)
		.filter((listing) => listing.channelId === channelId && listing.scope === 'server')
		.map((listing) => listing.key);
	// An archive outlives its entry's listing (the entry expired, or erasures emptied it): the channel's archive list names it.
	const archived = [...new Set([...serverKeys, ...Object.keys(archiveList ?? {})])];
	const userKeys = live(channelListings, now)
		.filter((listing) => listing.scope === 'user')
		.map((listing) => listing.key);
	const keys = [...serverKeys, ...userKeys];
	// An emptied archive's head moves to a new epoch, so every process drops its cached index.
	const removed = await store.locked(
		archived.map((key) => Records.archiveHead(key)),
		() => removeFromArchives(archive, archived, () => true)
	);
	const messagesDeleted = removed.reduce((sum, count) => sum + count, 0);
	await store.locked(keys.map(Records.entry), () => store.delete(keys.map(Records.entry)));
	const listings = new Map<RecordKey<Listings>, string[]>([
		[Records.serverDirectory(serverId), serverKeys],
		[Records.channelDirectory(serverId, channelId), userKeys]
	]);
	for (const key of userKeys) {
		const owner = Records.userDirectory(parseScopeKey(key)!.ownerId);
		listings.set(owner, [...(listings.get(owner) ?? []), key]);
	}
	await directory.forgetMany(listings);
	return { entriesDeleted: keys.length, messagesDeleted };
}
