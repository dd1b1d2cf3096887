import { DM_SERVER_ID } from '../schemas/primitives';
import type { ShortTermEntry } from '../schemas';
import { Keys } from '../store/keys';
import { type RecordKey, Records } from './Records';

/**
 * A conversation's scopes, the identity every other part uses for a short-term entry and its archive. Other parts read a
 * scope key only through these functions, never by its layout (`store/keys.ts`, which only the records layer imports).
 */
export { parseScopeKey, isScopeKey, liveScopeChannel, archiveScope, type ScopeKeyParts } from '../store/keys';

/** The short-term keys of one conversation of one persona. */
export interface ConversationKeys {
	/** The user's own scope: `shortterm:user:…`. */
	userKey: RecordKey<ShortTermEntry>;
	/** The channel's shared scope, outside DMs: `shortterm:server:…`. */
	serverKey: RecordKey<ShortTermEntry> | null;
	/** The scope contexts read: the server scope in a guild, the user scope in a DM. */
	liveKey: RecordKey<ShortTermEntry>;
	/** The channel, as its messages deleted on Discord are kept (`serverId` is `DM` in DMs): capture leaves them out. */
	channel: { serverId: string; channelId: string };
	/** The entries a turn writes, in this order: the user scope's, then the server scope's outside DMs. */
	entryKeys: RecordKey<ShortTermEntry>[];
}

/** Where a conversation's memory is kept: every turn writes the user scope and, in a guild, the server scope. */
export function conversationKeys(where: { userId: string; serverId: string | null; channelId: string }, personaId?: string | null): ConversationKeys {
	const userKey = Records.entry(Keys.userScope(where.userId, where.channelId, personaId));
	const serverKey = where.serverId === null ? null : serverScopeKey(where.serverId, where.channelId, personaId);
	return {
		userKey,
		serverKey,
		liveKey: serverKey ?? userKey,
		channel: { serverId: where.serverId ?? DM_SERVER_ID, channelId: where.channelId },
		entryKeys: serverKey ? [userKey, serverKey] : [userKey]
	};
}

/** The shared scope of one persona in one guild channel. */
export function serverScopeKey(serverId: string, channelId: string, personaId?: string | null): RecordKey<ShortTermEntry> {
	return Records.entry(Keys.serverScope(serverId, channelId, personaId));
}

/** What every server-scope key of `serverId` starts with, so the keys of one server are found by their prefix (ids never hold ":"). */
export function serverScopesPrefix(serverId: string): string {
	return Keys.serverScope(serverId, '');
}
