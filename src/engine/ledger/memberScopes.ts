import type { AuthorListings, Listings } from '../schemas';
import { type RecordKey, Records } from '../records/Records';
import { isScopeKey, liveScopeChannel, parseScopeKey, serverScopeKey } from '../records/scopes';
import { DM_SERVER_ID } from '../schemas/primitives';
import type { LedgerParts } from './LedgerParts';

/** Every scope holding something of one member (in one server, when asked). */
export interface MemberScopes {
	/** The member's own user-scope keys: their short-term entries and their DMs' archives. */
	own: string[];
	/** Server-scope keys (short-term entry and archive) that held the member's messages. */
	shared: string[];
	/** The member's user index as stored, expired listings included. */
	listings: Listings;
	/** The author index, with counts not yet written. */
	authored: AuthorListings;
}

/**
 * Finds a member's scopes through their user index and the author index, never by a scan; `within` a server, only
 * that server's (their DMs and other servers left out).
 */
export async function memberScopes(parts: Pick<LedgerParts, 'store' | 'authors'>, userId: string, within?: string): Promise<MemberScopes> {
	const everywhere = await scopesEverywhere(parts, userId);
	if (within === undefined) return everywhere;
	const inServer = (key: string) => liveScopeChannel(key)?.serverId === within;
	const { listings, authored } = everywhere;
	return {
		// A member scope's key does not name its server: its listing does, or the channel directory it was found in.
		own: everywhere.own.filter((key) => (listings[key]?.serverId ?? everywhere.foundIn.get(key)) === within),
		shared: everywhere.shared.filter(inServer),
		listings: Object.fromEntries(Object.entries(listings).filter(([, listing]) => listing.serverId === within)),
		authored: Object.fromEntries(Object.entries(authored).filter(([key]) => inServer(key)))
	};
}

async function scopesEverywhere(
	parts: Pick<LedgerParts, 'store' | 'authors'>,
	userId: string
): Promise<MemberScopes & { foundIn: Map<string, string> }> {
	const [listings = {}, authored] = await Promise.all([parts.store.get<Listings>(Records.userDirectory(userId)), parts.authors.listings(userId)]);
	const own = new Set(Object.keys(listings));
	const shared = new Set<string>();
	for (const key of Object.keys(authored)) {
		const scope = parseScopeKey(key);
		if (scope?.scope === 'server') shared.add(key);
		else if (scope?.ownerId === userId) own.add(key);
	}
	// Where the member triggered a turn, their words went to the server scope too.
	for (const listing of Object.values(listings)) {
		if (listing.serverId !== DM_SERVER_ID) shared.add(serverScopeKey(listing.serverId, listing.channelId, listing.personaId));
	}
	// Their own entries in those channels are listed in the channels' directories too: found there when their own directory
	// cannot be read (or lost a listing), so erasure never depends on one row.
	const channelDirectories = [...new Set([...shared].flatMap((key) => (parseScopeKey(key) ? [channelDirectory(key)] : [])))];
	/** Member scope key → the server whose channel directory listed it. */
	const foundIn = new Map<string, string>();
	for (const directory of await parts.store.getMany<Listings>(channelDirectories)) {
		for (const [key, listing] of Object.entries(directory ?? {})) {
			if (parseScopeKey(key)?.ownerId !== userId || !isScopeKey(key, 'user')) continue;
			own.add(key);
			foundIn.set(key, listing.serverId);
		}
	}
	return { own: [...own], shared: [...shared], listings, authored, foundIn };
}

/** The directory of a server-scope key's channel (`shortterm:server:<serverId>:<channelId>…`). */
function channelDirectory(serverScopeKey: string): RecordKey<Listings> {
	const scope = parseScopeKey(serverScopeKey)!;
	return Records.channelDirectory(scope.ownerId, scope.channelId);
}

/**
 * Each shared key with the other members' user-scope entries of the same channel and persona: they
 * carry the channel's summary, and entries written before user scopes kept only their owner's words
 * may hold the member's messages.
 */
export async function withRelated(parts: Pick<LedgerParts, 'store'>, userId: string, shared: readonly string[]): Promise<Map<string, string[]>> {
	const channelKeys = [...new Set(shared.flatMap((key) => (parseScopeKey(key) ? [channelDirectory(key)] : [])))];
	const directories = await parts.store.getMany<Listings>(channelKeys);
	const byChannel = new Map(channelKeys.map((directory, index) => [directory, Object.values(directories[index] ?? {})]));
	return new Map(
		shared.map((key) => {
			const scope = parseScopeKey(key)!;
			const related = (byChannel.get(channelDirectory(key)) ?? []).filter((listing) => {
				const other = parseScopeKey(listing.key);
				return (
					other?.scope === 'user' && other.ownerId !== userId && other.channelId === scope.channelId && other.personaId === scope.personaId
				);
			});
			return [key, related.map((listing) => listing.key)];
		})
	);
}
