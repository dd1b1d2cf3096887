import { isScopeKey } from '../records/scopes';
import { DM_SERVER_ID } from '../schemas/primitives';
import { EVERY_CHANNEL, type ParsedContextRequest, type ScopeListing, type ShortTermEntry } from '../schemas';
import type { ContextParts } from './ContextParts';

/** Another channel's memory the context may show: its listing, and its entry as read. */
export interface OtherEntry {
	listing: ScopeListing;
	entry: ShortTermEntry | undefined;
}

/** Other channels' memories the request may see, newest first, at most `maxOtherChannels`. */
export async function otherChannels(
	parts: ContextParts,
	request: ParsedContextRequest,
	crossServerOptIn: boolean,
	lineage: string | null,
	serverListings: ScopeListing[],
	userListings: ScopeListing[],
	now: number
): Promise<ScopeListing[]> {
	const { config } = parts;
	if (config.maxOtherChannels === 0) return [];
	const here = request.serverId ?? DM_SERVER_ID;
	const sameLineage = (listing: ScopeListing) => (listing.lineageId ?? listing.personaId ?? null) === lineage;
	const elsewhere = (listing: ScopeListing) => listing.channelId !== request.channelId;
	const candidates: ScopeListing[] = [];
	if (request.serverId !== null)
		candidates.push(...serverListings.filter((listing) => listing.serverId === here && isScopeKey(listing.key, 'server')));
	for (const listing of userListings.filter((candidate) => isScopeKey(candidate.key, 'user'))) {
		// The user's own DM entries follow them between DM channels; other servers need their opt-in.
		if (listing.serverId === here) {
			if (request.serverId === null) candidates.push(listing);
		} else if (crossServerOptIn) {
			candidates.push(listing);
		}
	}
	const visibleChannels = request.visibleChannelIds ? new Set(request.visibleChannelIds) : null;
	const serverIds = [...new Set(candidates.map((listing) => listing.serverId).filter((id) => id !== DM_SERVER_ID))];
	const privateByServer = new Map(
		await Promise.all(serverIds.map(async (id) => [id, new Set((await parts.settings.server(id)).privateChannelIds)] as const))
	);
	const outsidePrivate = (listing: ScopeListing) => {
		const privateChannels = privateByServer.get(listing.serverId);
		if (!privateChannels) return true;
		// Server settings that could not be read make every channel private (see storedValues.ts).
		const everyChannel = privateChannels.has(EVERY_CHANNEL);
		const home = [listing.channelId, listing.parentChannelId].filter(
			(id): id is string => Boolean(id) && (everyChannel || privateChannels.has(id!))
		);
		if (home.length === 0) return true;
		// A private channel's memory stays in that channel and its threads.
		return listing.serverId === here && home.some((id) => id === request.channelId || id === request.parentChannelId);
	};
	const canView = (listing: ScopeListing) => !visibleChannels || listing.serverId !== here || visibleChannels.has(listing.channelId);
	const seen = new Set<string>();
	return candidates
		.filter((listing) => elsewhere(listing) && sameLineage(listing) && listing.expiresAt > now && outsidePrivate(listing) && canView(listing))
		.filter((listing) => !seen.has(listing.key) && Boolean(seen.add(listing.key)))
		.sort((a, b) => b.lastUpdated - a.lastUpdated)
		.slice(0, config.maxOtherChannels);
}
