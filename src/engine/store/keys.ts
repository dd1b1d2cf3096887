import { createHash } from 'node:crypto';
import { DM_SERVER_ID } from '../schemas/primitives';

export { DM_SERVER_ID };

function suffix(personaId: string | null | undefined): string {
	return personaId ? `:${personaId}` : '';
}

/** Every key the engine writes, in one place. */
export const Keys = {
	/** `shortterm:user:<userId>:<channelId>[:<personaId>]` */
	userScope: (userId: string, channelId: string, personaId?: string | null) => `shortterm:user:${userId}:${channelId}${suffix(personaId)}`,
	/** `shortterm:server:<serverId>:<channelId>[:<personaId>]`; never used in DMs. */
	serverScope: (serverId: string, channelId: string, personaId?: string | null) => `shortterm:server:${serverId}:${channelId}${suffix(personaId)}`,
	/** The scopes one user wrote, across servers and DMs. */
	userIndex: (userId: string) => `index:user:${userId}`,
	/** The server-scope entries of one server (one per channel and persona). */
	serverIndex: (serverId: string) => `index:server:${serverId}`,
	/** The user-scope entries of one guild channel (one per member and persona), for the channel wipe and erasure. */
	channelIndex: (serverId: string, channelId: string) => `index:channel:${serverId}:${channelId}`,
	/** The live scopes (short-term entry and archive) holding messages one user wrote, so erasure never scans the store. */
	authorIndex: (authorId: string) => `index:author:${authorId}`,
	/** Long-term profile of one user (MINIMAL users only). */
	profile: (userId: string) => `ltm:profile:${userId}`,
	/** Long-term topic notes of one user, keyed by slug (MINIMAL users only). */
	topics: (userId: string) => `ltm:topics:${userId}`,
	/**
	 * Which stored messages the context of one persona reply to a member drew on: `sources:<userId>:<slot>`, the slot
	 * (0–15) chosen by the reply's id, so that a member's records are bounded and found without a list.
	 */
	contextSources: (userId: string, slot: number) => `sources:${userId}:${slot}`,
	userSettings: (userId: string) => `settings:user:${userId}`,
	serverSettings: (serverId: string) => `settings:server:${serverId}`,
	/** Head of a scope's archive: how many chunks it has. */
	archiveHead: (scopeKey: string) => `archive:${scopeKey}:head`,
	archiveChunk: (scopeKey: string, chunk: number) => `archive:${scopeKey}:chunk:${chunk}`,
	/**
	 * Marks one message as archived, so that re-recording a turn stores nothing twice, and says where it is: `seen:<tag>:<id>`,
	 * the tag standing for the scope key (see {@link scopeTag}), since an archive has a marker per message.
	 */
	archiveMarker: (scopeKey: string, messageId: string) => `seen:${scopeTag(scopeKey)}:${messageId}`,
	/** The marker's key in archives written before markers were keyed by tag; still read, and deleted with the archive. */
	archiveMarkerUntagged: (scopeKey: string, messageId: string) => `archive:${scopeKey}:seen:${messageId}`,
	/**
	 * The chunks of a located archive holding one member's words (their messages, and the persona's replies to them): a set,
	 * so that erasing them reads those chunks alone.
	 */
	archiveAuthorChunks: (scopeKey: string, authorId: string) => `archive:${scopeKey}:by:${authorId}`,
	/** Markers of messages removed from a scope's archive (message id → time), so the sweep can delete them once past retention. */
	archiveTombstones: (scopeKey: string) => `archive:${scopeKey}:tombstones`,
	/**
	 * The live scopes of one channel that have an archive (scope key → when this process last listed it), so a
	 * message deleted on Discord is found in every persona's archive by its channel alone. `<serverId>` is `DM` in DMs.
	 */
	channelArchives: (serverId: string, channelId: string) => `archives:${serverId}:${channelId}`,
	/**
	 * Messages of one channel deleted on Discord (message id → until when), as one list: the layout before one record per
	 * message, still read, and moved by the sweep. `<serverId>` is `DM` in DMs.
	 */
	forgotten: (serverId: string, channelId: string) => `forgotten:${serverId}:${channelId}`,
	/**
	 * One message of a channel deleted on Discord (or a persona reply's text fingerprint), never captured again: until when,
	 * as `gone:<tag>:<id>`, the tag standing for the channel (see {@link scopeTag}), since a busy channel has many.
	 */
	forgottenMessage: (serverId: string, channelId: string, messageId: string) => `gone:${scopeTag(`${serverId}:${channelId}`)}:${messageId}`,
	/** The ids of one channel's forgotten messages: a set, which the sweep walks and a server's purge deletes. */
	forgottenIds: (serverId: string, channelId: string) => `forgotten-ids:${serverId}:${channelId}`,
	/** The members who left a server and were forgotten there (user id → when), whose settings name the server. */
	leftMembers: (serverId: string) => `left:${serverId}`,
	/** A purge of a server the bot was removed from, waiting for `MEMORY_SERVER_PURGE_GRACE_HOURS`. */
	serverPurge: (serverId: string) => `purge:server:${serverId}`,
	/** A registry of the layout before partitions: one set of ids per kind, which the sweep moves into partitions. */
	registry: (kind: string) => `registry:${kind}`,
	/** The ids of one kind met in one server (`DM` for direct messages): a set, written by the server's shard alone. */
	registryOfServer: (kind: string, serverId: string) => `registry:${kind}:server:${serverId}`,
	/** The server ids of one kind (servers with a directory, pending purges) in one of the 64 shard buckets: a set. */
	registryOfBucket: (kind: string, bucket: number) => `registry:${kind}:bucket:${bucket}`,
	/** The servers of one of the 64 shard buckets that have a registry partition (`registry:<kind>:server:<id>`): a set. */
	registryServers: (bucket: number) => `registry:servers-with-partitions:${bucket}`,
	/** One of the 64 buckets a registry was kept in before it was a set (id → 1), read once to move its ids into the set. */
	registryBucket: (kind: string, bucket: number) => `registry:${kind}:${bucket}`,
	/** A value sealed with the store's encryption key, read at start-up to tell whether the configured keys open the store. */
	sealCheck: () => 'encryption:check',
	/** Which process swept last, and when, so shard processes take turns. */
	sweepLease: () => 'sweep:lease'
} as const;

/**
 * 16 characters (96 bits) of the scope key's SHA-256: an archive's marker keys name their scope by it, some 50 characters
 * shorter each than the scope key, which on SQLite is 7 MiB per 100,000 archived messages. Two scopes sharing a tag
 * would share the markers of a message both archive; at 96 bits that takes some 10^14 scopes.
 */
export function scopeTag(scopeKey: string): string {
	return createHash('sha256').update(scopeKey).digest('base64url').slice(0, 16);
}

/** What a short-term scope key names. Ids never hold ":", so the key splits unambiguously. */
export interface ScopeKeyParts {
	scope: 'user' | 'server';
	/** The user id of a user scope, the server id of a server scope. */
	ownerId: string;
	channelId: string;
	personaId: string | null;
}

/** Splits a `shortterm:…` key; null for any other key. */
export function parseScopeKey(key: string): ScopeKeyParts | null {
	const [prefix, scope, ownerId, channelId, personaId, ...rest] = key.split(':');
	if (prefix !== 'shortterm' || (scope !== 'user' && scope !== 'server') || !ownerId || !channelId || rest.length > 0) return null;
	return { scope, ownerId, channelId, personaId: personaId || null };
}

/** Whether `key` is a short-term key of `scope`: a member's own (`user`), or a guild channel's shared one (`server`). */
export function isScopeKey(key: string, scope: ScopeKeyParts['scope']): boolean {
	return parseScopeKey(key)?.scope === scope;
}

/** The channel a live scope key names: the server scope's server and channel, or a DM's. */
export function liveScopeChannel(scopeKey: string): { serverId: string; channelId: string } | null {
	const scope = parseScopeKey(scopeKey);
	if (!scope) return null;
	return { serverId: scope.scope === 'server' ? scope.ownerId : DM_SERVER_ID, channelId: scope.channelId };
}

/** The scope key inside an archive key: `archive:<scope key>:head`, `…:chunk:<n>`, `…:seen:<id>`, `…:by:<id>`, `…:tombstones`. */
export function archiveScope(key: string): string {
	const inner = key.slice('archive:'.length);
	const cut = inner.search(/:(head|tombstones|chunk:\d+|seen:.*|by:[^:]+)$/);
	return cut === -1 ? inner : inner.slice(0, cut);
}
