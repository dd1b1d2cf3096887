import type { ArchiveHead, Listings, ShortTermEntry, StoredTopics, UserProfile } from '../schemas';
import { type RecordKey, Records } from './Records';
import type { RecordStore } from './RecordStore';
import { conversationKeys } from './scopes';

/** What a context starts from, as stored: the live scope's entry and archive head, the member's long-term memory, the directories. */
export interface ContextSnapshot {
	/** The scope contexts read: the server scope in a guild, the member's own in a DM. */
	liveKey: RecordKey<ShortTermEntry>;
	entry: ShortTermEntry | undefined;
	archiveHead: ArchiveHead | undefined;
	profile: UserProfile | undefined;
	topics: StoredTopics | undefined;
	/** The member's user-scope entries, for their other channels. */
	userListings: Listings | undefined;
	/** The server's shared entries, for its other channels; undefined in a DM. */
	serverListings: Listings | undefined;
}

/** Reads what a context for `where` starts from, in one round trip. */
export async function readContextSnapshot(
	store: RecordStore,
	where: { userId: string; serverId: string | null; channelId: string; personaId?: string | null }
): Promise<ContextSnapshot> {
	const { liveKey } = conversationKeys(where, where.personaId);
	const keys = [
		liveKey,
		Records.archiveHead(liveKey),
		Records.profile(where.userId),
		Records.topics(where.userId),
		Records.userDirectory(where.userId)
	] as const;
	if (where.serverId === null) {
		const [entry, archiveHead, profile, topics, userListings] = await store.read(keys);
		return { liveKey, entry, archiveHead, profile, topics, userListings, serverListings: undefined };
	}
	const [entry, archiveHead, profile, topics, userListings, serverListings] = await store.read([
		...keys,
		Records.serverDirectory(where.serverId)
	] as const);
	return { liveKey, entry, archiveHead, profile, topics, userListings, serverListings };
}
