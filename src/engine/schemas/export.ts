import type { UserProfile, TopicNote } from './account';
import type { PrivacyLevel } from './turn';

/** One message in an export. */
export interface ExportedMessage {
	/** The Discord message id. */
	id: string;
	/** Who wrote it: the member, or a persona of the bot. */
	role: 'user' | 'persona';
	/** `"DM"` in DMs. */
	serverId: string;
	/** The channel (or thread) it was said in. */
	channelId: string;
	/** The persona whose conversation holds it; null for the bot's default persona. */
	personaId: string | null;
	/** The author's display name, when one was given. */
	authorName?: string;
	/** The text as stored (cleaned: see docs/context.md). */
	text: string;
	/** ISO 8601. */
	at: string;
}

/** One of the user's own short-term entries in an export. */
export interface ExportedEntry {
	/** `"DM"` in DMs. */
	serverId: string;
	/** The channel (or thread) of the conversation. */
	channelId: string;
	/** A thread's parent channel; null for a channel. */
	parentChannelId: string | null;
	/** The persona of the conversation; null for the bot's default persona. */
	personaId: string | null;
	/** The summary the persona's LLM wrote with `update_short_term_memory`; null when none. */
	summary: string | null;
	/** The summary by the server's categories, when it has any; else null. */
	categories: Record<string, string> | null;
	/** ISO 8601. */
	lastUpdated: string;
	/** When the entry expires unless the conversation goes on; ISO 8601. */
	expiresAt: string;
	/** The entry's messages, oldest first. */
	messages: ExportedMessage[];
}

/** Everything stored about one user, and nothing about anyone else (`/session export`). */
export interface UserExport {
	/** The version of this format; it changes when a field's meaning does. */
	schemaVersion: number;
	/** ISO 8601. */
	exportedAt: string;
	/** The user the export is of. */
	userId: string;
	/** The user's settings, with the times (ISO 8601) of their last `/session clear` and `clear scope:all`, if any. */
	settings: { privacyLevel: PrivacyLevel; crossServerOptIn: boolean; clearedBefore?: string; erasedBefore?: string };
	/** The user's own conversation memories: their messages and the personas' replies. */
	shortTerm: ExportedEntry[];
	/** The user's messages held in shared channel memories (server scope). */
	sharedShortTerm: ExportedMessage[];
	/** Archived messages the user wrote, and the personas' replies in their DMs. */
	archive: ExportedMessage[];
	/** The user's long-term profile; null when none. */
	profile: UserProfile | null;
	/** The user's topic notes. */
	topics: TopicNote[];
}
