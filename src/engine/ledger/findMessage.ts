import { chunkKeys, heldChunkKeys } from '../archive/Archive';
import { chunksOf } from '../archive/locations';
import { markerKeysToRead, markersRead } from '../archive/markerKeys';
import { Records } from '../records/Records';
import { isScopeKey } from '../records/scopes';
import type { ArchiveHead, ChannelArchiveListings, ShortTermEntry, StoredMessage } from '../schemas';
import { DM_SERVER_ID } from '../schemas/primitives';
import { channelEntries } from './channelEntries';
import type { LedgerParts } from './LedgerParts';

/** The channel a message was written in, and the member who asks: `serverId` null in a DM, which is then `userId`'s. */
export interface MessagePlace {
	serverId: string | null;
	channelId: string;
	userId: string;
}

/**
 * The copy memory keeps of one message of a channel, or null when none does, read and never written: the short-term
 * entries of the channel first (every persona's and member's, through its directories), then each archive of the channel
 * at the chunk its marker names (an archive begun before markers held locations is read whole). Who wrote it, and the
 * member a persona's reply answered, are what a request to forget one message is checked against.
 */
export async function findMessage(parts: LedgerParts, place: MessagePlace, messageId: string): Promise<StoredMessage | null> {
	const { store } = parts;
	const serverId = place.serverId ?? DM_SERVER_ID;
	// The place names its member, so its directories and its archive list are read at once.
	const [[listed], [entryKeys = []]] = await Promise.all([
		store.getMany<ChannelArchiveListings>([Records.channelArchives(serverId, place.channelId)]),
		channelEntries(parts, [place], [])
	]);
	const entries = await store.getMany<ShortTermEntry>(entryKeys.map(Records.entry));
	const inEntry = entries.flatMap((entry) => entry?.messages ?? []).find((message) => message.id === messageId);
	if (inEntry) return inEntry;

	const liveKeys = entryKeys.filter((key) => isScopeKey(key, place.serverId === null ? 'user' : 'server'));
	const archiveKeys = [...new Set([...Object.keys(listed ?? {}), ...liveKeys])];
	const read = await store.getMany<unknown>(
		archiveKeys.flatMap((scopeKey) => [Records.archiveHead(scopeKey), ...markerKeysToRead(scopeKey, [messageId])])
	);
	const chunkKeysToRead = archiveKeys.flatMap((scopeKey, index) => {
		const [head, ...markerValues] = read.slice(index * 3, index * 3 + 3) as [ArchiveHead | undefined, ...unknown[]];
		const [marker] = markersRead(markerValues, 1);
		if (!head || marker === undefined) return [];
		const chunks = chunksOf(marker);
		return chunks === null ? chunkKeys(scopeKey, head) : heldChunkKeys(scopeKey, head, chunks);
	});
	const chunks = await store.getMany<StoredMessage[]>(chunkKeysToRead);
	return chunks.flatMap((chunk) => chunk ?? []).find((message) => message.id === messageId) ?? null;
}
