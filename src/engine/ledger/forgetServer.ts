import { deleteArchives } from '../archive/deleteArchive';
import type { Listings, ShortTermEntry } from '../schemas';
import { Records } from '../records/Records';
import { parseScopeKey, serverScopesPrefix } from '../records/scopes';
import type { LedgerParts } from './LedgerParts';
import { deleteForgotten } from './forgotten';
import { dropRecordsNaming } from '../records/contextSourceRecords';

/** What purging a server removed. */
export interface ServerPurge {
	/** Short-term entries deleted: the server's channel memories and its members' own conversations there. */
	entriesDeleted: number;
	/** Archived messages deleted. */
	archivedMessagesDeleted: number;
	/** Channels whose memory went. */
	channels: number;
}

/**
 * Everything of one server: every channel's server-scope entries (every persona) and archives, its members'
 * user-scope entries for its channels, the directories listing them (expired listings too), the channels'
 * archive and forgotten lists, and the listings of the author index and the
 * registries that name any of them. Channels are found through the server's directory and the registries,
 * so a channel whose short-term memory expired long ago but whose archive lives is found too.
 */
export async function forgetServer(parts: LedgerParts, serverId: string): Promise<ServerPurge> {
	const { store, archive, registry, directory } = parts;
	const [serverListings = {}] = await store.getMany<Listings>([Records.serverDirectory(serverId)]);
	// The server's partitions, and its ids in the sets before partitions, where they are together in the set's order.
	const prefix = `${serverId}:`;
	const registered = (kind: 'channels' | 'archives' | 'forgotten', idPrefix: string) =>
		Promise.all([registry.ofServer(kind, serverId), registry.unpartitionedWithPrefix(kind, idPrefix)]).then((found) => [
			...new Set(found.flat())
		]);
	const [channelIds, archivedScopes, forgottenIds] = await Promise.all([
		registered('channels', prefix),
		registered('archives', serverScopesPrefix(serverId)),
		registered('forgotten', prefix)
	]);
	const channels = new Set([
		...Object.values(serverListings).map((listing) => listing.channelId),
		...channelIds.map((id) => id.slice(prefix.length)),
		...forgottenIds.map((id) => id.slice(prefix.length))
	]);
	const serverScopes = new Set([...Object.keys(serverListings), ...archivedScopes]);
	for (const key of await parts.channelArchives.ofChannels(serverId, [...channels])) serverScopes.add(key);
	for (const key of serverScopes) channels.add(parseScopeKey(key)!.channelId);

	const channelDirectories = [...channels].map((channelId) => Records.channelDirectory(serverId, channelId));
	const userScopes = (await store.getMany<Listings>(channelDirectories)).flatMap((listings) => Object.keys(listings ?? {}));
	const authors = new Map<string, Set<string>>();
	const noteAuthors = (key: string, messages: readonly { role: string; authorId?: string }[]) => {
		for (const message of messages) {
			if (message.role !== 'user' || !message.authorId) continue;
			authors.set(message.authorId, (authors.get(message.authorId) ?? new Set()).add(key));
		}
	};

	const purge: ServerPurge = { entriesDeleted: 0, archivedMessagesDeleted: 0, channels: channels.size };
	const entryKeys = [...serverScopes, ...userScopes];
	await store.locked([...entryKeys.map(Records.entry), ...[...serverScopes].map((key) => Records.archiveHead(key))], async () => {
		const entries = await store.getManyChecked(entryKeys.map(Records.entry));
		entries.forEach(({ value, damaged }, index) => {
			if (value || damaged) purge.entriesDeleted++;
			if (value) noteAuthors(entryKeys[index]!, value.messages);
		});
		await store.delete(entryKeys.map(Records.entry));
		const archived = await deleteArchives(archive, [...serverScopes]);
		[...serverScopes].forEach((key, index) => {
			noteAuthors(key, archived[index]!);
			purge.archivedMessagesDeleted += archived[index]!.length;
		});
	});

	// The listings that named them.
	const owners = new Map<string, string[]>();
	for (const key of userScopes) {
		const owner = parseScopeKey(key)?.ownerId;
		if (owner) owners.set(owner, [...(owners.get(owner) ?? []), key]);
	}
	await directory.forgetMany(new Map([...owners].map(([userId, keys]) => [Records.userDirectory(userId), keys])));
	// Every author seen, and every member with a conversation there: an author index may still list a scope whose
	// messages of theirs were deleted since.
	const members = [...new Set([...authors.keys(), ...owners.keys()])];
	await parts.authors.removeMany(new Map(members.map((authorId) => [authorId, [...serverScopes]])));
	// What their replies drew on, where it names the server.
	await dropRecordsNaming(store, members, serverId);
	await store.delete([Records.serverDirectory(serverId), ...channelDirectories]);
	await deleteForgotten(store, serverId, [...channels]);
	await parts.channelArchives.forget(serverId, [...channels]);
	const channelIdsInRegistry = [...channels].map((channelId) => `${serverId}:${channelId}`);
	await registry.removeMany(
		new Map([
			['servers', [serverId]],
			['channels', channelIdsInRegistry],
			['archives', [...serverScopes]],
			['forgotten', channelIdsInRegistry]
		]),
		serverId
	);
	// Its members' and authors' ids there too: every set of the server goes.
	await registry.forgetServer(serverId);
	return purge;
}
