import type {
	ArchiveHead,
	ArchiveLocation,
	ArchiveMarker,
	AuthorListings,
	ChannelArchiveListings,
	ContextSourcesRecord,
	ForgottenMessages,
	LeftMembers,
	Listings,
	PendingPurge,
	ServerSettings,
	ShortTermEntry,
	StoredMessage,
	StoredTopics,
	SweepLease,
	Tombstones,
	UserProfile,
	UserSettings
} from '../schemas';
import { Keys } from '../store/keys';

/**
 * The key of one record, typed by what it holds. Only {@link Records} makes one, so no other part spells a key or
 * chooses what a key's value is: the record store reads and writes each as its type says.
 */
export type RecordKey<T> = string & { readonly [holds]: T };

declare const holds: unique symbol;

/** What a record key's value is. */
export type RecordValue<K> = K extends RecordKey<infer T> ? T : never;

/** What an archive's marker holds (see `ArchiveMarker` and archive/locations.ts). */
export type ArchiveMarkerValue = (typeof ArchiveMarker)[keyof typeof ArchiveMarker] | ArchiveLocation;

function typed<T>(key: string): RecordKey<T> {
	return key as RecordKey<T>;
}

/** The key of a set of ids (store/sets.ts). Only {@link Records} makes one, as it makes record keys. */
export type SetKey = string & { readonly [setOfIds]: true };

declare const setOfIds: unique symbol;

/** Members to add to, or remove from, one set. */
export interface RecordSetChange {
	key: SetKey;
	members: readonly string[];
}

/** Every record the engine keeps, by kind (docs/storage.md lists their layout). */
export const Records = {
	/** A conversation's short-term entry; its scope key (records/scopes.ts) is its key. */
	entry: (scopeKey: string) => typed<ShortTermEntry>(scopeKey),
	/** The short-term entries a member wrote, across servers and DMs. */
	userDirectory: (userId: string) => typed<Listings>(Keys.userIndex(userId)),
	/** The server-scope entries of one server (one per channel and persona). */
	serverDirectory: (serverId: string) => typed<Listings>(Keys.serverIndex(serverId)),
	/** The user-scope entries of one guild channel (one per member and persona). */
	channelDirectory: (serverId: string, channelId: string) => typed<Listings>(Keys.channelIndex(serverId, channelId)),
	/** The live scopes holding a member's words. */
	authors: (authorId: string) => typed<AuthorListings>(Keys.authorIndex(authorId)),
	profile: (userId: string) => typed<UserProfile>(Keys.profile(userId)),
	topics: (userId: string) => typed<StoredTopics>(Keys.topics(userId)),
	/** What the context of one persona reply to a member drew on, in one of the member's slots (records/contextSourceRecords.ts). */
	contextSources: (userId: string, slot: number) => typed<ContextSourcesRecord>(Keys.contextSources(userId, slot)),
	userSettings: (userId: string) => typed<UserSettings>(Keys.userSettings(userId)),
	serverSettings: (serverId: string) => typed<ServerSettings>(Keys.serverSettings(serverId)),
	/** The members who left a server and were forgotten there. */
	leftMembers: (serverId: string) => typed<LeftMembers>(Keys.leftMembers(serverId)),
	archiveHead: (scopeKey: string) => typed<ArchiveHead>(Keys.archiveHead(scopeKey)),
	archiveChunk: (scopeKey: string, chunk: number) => typed<StoredMessage[]>(Keys.archiveChunk(scopeKey, chunk)),
	archiveMarker: (scopeKey: string, messageId: string) => typed<ArchiveMarkerValue>(Keys.archiveMarker(scopeKey, messageId)),
	archiveMarkerUntagged: (scopeKey: string, messageId: string) => typed<ArchiveMarkerValue>(Keys.archiveMarkerUntagged(scopeKey, messageId)),
	archiveTombstones: (scopeKey: string) => typed<Tombstones>(Keys.archiveTombstones(scopeKey)),
	/** The live scopes of one channel that have an archive; `serverId` is `DM` in DMs. */
	channelArchives: (serverId: string, channelId: string) => typed<ChannelArchiveListings>(Keys.channelArchives(serverId, channelId)),
	/** Messages of one channel deleted on Discord, never captured again; `serverId` is `DM` in DMs. */
	forgotten: (serverId: string, channelId: string) => typed<ForgottenMessages>(Keys.forgotten(serverId, channelId)),
	/** One message of a channel deleted on Discord: until when capture leaves it out; `serverId` is `DM` in DMs. */
	forgottenMessage: (serverId: string, channelId: string, messageId: string) =>
		typed<number>(Keys.forgottenMessage(serverId, channelId, messageId)),
	/** A purge of a server the bot was removed from, waiting for its grace. */
	serverPurge: (serverId: string) => typed<PendingPurge>(Keys.serverPurge(serverId)),
	/** Which process swept last, and when. */
	sweepLease: () => typed<SweepLease>(Keys.sweepLease()),
	/** The ids of one kind the sweep walks, as the layout before partitions kept them (records/registryLayout.ts). */
	registry: (kind: string) => Keys.registry(kind) as SetKey,
	/** The ids of one kind met in one server (records/registryLayout.ts). */
	registryOfServer: (kind: string, serverId: string) => Keys.registryOfServer(kind, serverId) as SetKey,
	/** The server ids of one kind in one shard bucket (records/registryLayout.ts). */
	registryOfBucket: (kind: string, bucket: number) => Keys.registryOfBucket(kind, bucket) as SetKey,
	/** The servers of one shard bucket that have a registry partition (records/registryLayout.ts). */
	registryServers: (bucket: number) => Keys.registryServers(bucket) as SetKey,
	/** The ids of one channel's forgotten messages: a set. */
	forgottenIds: (serverId: string, channelId: string) => Keys.forgottenIds(serverId, channelId) as SetKey,
	/** The chunks of a located archive holding a member's words (see ArchiveHead.located): a set of chunk numbers. */
	archiveAuthorChunks: (scopeKey: string, authorId: string) => Keys.archiveAuthorChunks(scopeKey, authorId) as SetKey,
	/** A registry bucket of the layout before sets (id → 1), whose ids move into the set. */
	registryBucket: (kind: string, bucket: number) => typed<Record<string, 1>>(Keys.registryBucket(kind, bucket))
} as const;
