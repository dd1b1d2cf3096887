import type { ChannelArchiveListings, Listings, MessagesChange } from '../schemas';
import { Records } from '../records/Records';
import { parseScopeKey } from '../records/scopes';
import { DM_SERVER_ID } from '../schemas/primitives';
import type { LedgerParts } from './LedgerParts';

/**
 * The short-term entries of each change's channel, in one read: in a guild, every persona's server scope and every
 * member's user scope there; in a DM, the member's user scopes of that DM channel.
 */
export async function channelEntries(
	parts: LedgerParts,
	changes: readonly Pick<MessagesChange, 'serverId' | 'channelId' | 'userId'>[],
	listedArchives: readonly (ChannelArchiveListings | undefined)[]
): Promise<string[][]> {
	// A DM's member: as the host named them, or as the DM's archives name them (`shortterm:user:<userId>:…`).
	const directories = changes.map((change, index) =>
		change.serverId === null
			? (change.userId
					? [change.userId]
					: [...new Set(Object.keys(listedArchives[index] ?? {}).flatMap((key) => parseScopeKey(key)?.ownerId ?? []))]
				).map((userId) => Records.userDirectory(userId))
			: [Records.serverDirectory(change.serverId), Records.channelDirectory(change.serverId, change.channelId)]
	);
	const read = await parts.store.getMany<Listings>(directories.flat());
	let at = 0;
	return changes.map((change, index) => {
		const listings = read.slice(at, (at += directories[index]!.length)).flatMap((listed) => Object.values(listed ?? {}));
		const found =
			change.serverId === null
				? listings.filter((listing) => listing.serverId === DM_SERVER_ID && listing.channelId === change.channelId)
				: listings.filter(
						(listing) =>
							(listing.scope === 'server' && listing.channelId === change.channelId) ||
							(listing.scope === 'user' && listing.serverId === change.serverId && listing.channelId === change.channelId)
					);
		return [...new Set(found.map((listing) => listing.key))];
	});
}
