import type { UserProfile, TopicNote } from './account';
import type { PrivacyLevel } from './turn';

/** One message in an export. */
export interface ExportedMessage {
	id: string;
	role: 'user' | 'persona';
	/** `"DM"` in DMs. */
	serverId: string;
	channelId: string;
	personaId: string | null;
	authorName?: string;
	text: string;
	/** ISO 8601. */
	at: string;
}

/** One of the user's own short-term entries in an export. */
export interface ExportedEntry {
	serverId: string;
	channelId: string;
	parentChannelId: string | null;
	personaId: string | null;
	summary: string | null;
	categories: Record<string, string> | null;
	lastUpdated: string;
	expiresAt: string;
	messages: ExportedMessage[];
}

/** Everything stored about one user, and nothing about anyone else (`/session export`). */
export interface UserExport {
	schemaVersion: number;
	/** ISO 8601. */
	exportedAt: string;
	userId: string;
	settings: { privacyLevel: PrivacyLevel; crossServerOptIn: boolean; clearedBefore?: string; erasedBefore?: string };
	/** The user's own conversation memories: their messages and the personas' replies. */
	shortTerm: ExportedEntry[];
	/** The user's messages held in shared channel memories (server scope). */
	sharedShortTerm: ExportedMessage[];
	/** Archived messages the user wrote, and the personas' replies in their DMs. */
	archive: ExportedMessage[];
	profile: UserProfile | null;
	topics: TopicNote[];
}
