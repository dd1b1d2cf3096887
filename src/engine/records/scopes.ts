import { DM_SERVER_ID } from '../schemas/primitives';
import { Keys } from '../store/keys';

/**
 * A conversation's scopes, the identity every other part uses for a short-term entry and its archive. Other parts read a
 * scope key only through these functions, never by its layout (`store/keys.ts`, which only the records layer imports).
 */
export { parseScopeKey, isScopeKey, liveScopeChannel, archiveScope, type ScopeKeyParts } from '../store/keys';

/** The short-term keys of one conversation of one persona. */
export interface ConversationKeys {
	/** The user's own scope: `shortterm:user:…`. */
	userKey: string;
	/** The channel's shared scope, outside DMs: `shortterm:server:…`. */
	serverKey: string | null;
	/** The scope contexts read: the server scope in a guild, the user scope in a DM. */
	liveKey: string;
	/** The channel's messages deleted on Discord, which capture leaves out. */
	forgottenKey: string;
}

/** Where a conversation's memory is kept: every turn writes the user scope and, in a guild, the server scope. */
export function conversationKeys(where: { userId: string; serverId: string | null; channelId: string }, personaId?: string | null): ConversationKeys {
	const userKey = Keys.userScope(where.userId, where.channelId, personaId);
	const serverKey = where.serverId === null ? null : Keys.serverScope(where.serverId, where.channelId, personaId);
	return { userKey, serverKey, liveKey: serverKey ?? userKey, forgottenKey: Keys.forgotten(where.serverId ?? DM_SERVER_ID, where.channelId) };
}
