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
	return (await findMessages(parts, place, [messageId])).get(messageId) ?? null;
}

/** The copies memory keeps of messages of one channel, by id, found as {@link findMessage} finds one: the same round trips for any number. */
export async function findMessages(parts: LedgerParts, place: MessagePlace, messageIds: readonly string[]): Promise<Map<string, StoredMessage>> {
	const { store } = parts;
	const found = new Map<string, StoredMessage>();
	const wanted = new Set(messageIds);
	if (wanted.size === 0) return found;
	const serverId = place.serverId ?? DM_SERVER_ID;
	// The place names its member, so its directories and its archive list are read at once.
	const [[listed], [entryKeys = []]] = await Promise.all([
		store.getMany<ChannelArchiveListings>([Records.channelArchives(serverId, place.channelId)]),
		channelEntries(parts, [place], [])
	]);
	const entries = await store.getMany<ShortTermEntry>(entryKeys.map(Records.entry));
	for (const message of entries.flatMap((entry) => entry?.messages ?? [])) if (wanted.has(message.id)) found.set(message.id, message);
	const missing = [...wanted].filter((id) => !found.has(id));
	if (missing.length === 0) return found;

	const liveKeys = entryKeys.filter((key) => isScopeKey(key, place.serverId === null ? 'user' : 'server'));
	const archiveKeys = [...new Set([...Object.keys(listed ?? {}), ...liveKeys])];
	const perArchive = 1 + 2 * missing.length;
	const read = await store.getMany<unknown>(
		archiveKeys.flatMap((scopeKey) => [Records.archiveHead(scopeKey), ...markerKeysToRead(scopeKey, missing)])
	);
	const chunkKeysToRead = archiveKeys.flatMap((scopeKey, index) => {
		const [head, ...markerValues] = read.slice(index * perArchive, (index + 1) * perArchive) as [ArchiveHead | undefined, ...unknown[]];
		const markers = markersRead(markerValues, missing.length).filter((marker) => marker !== undefined);
		if (!head || markers.length === 0) return [];
		const located = markers.map(chunksOf);
		if (located.includes(null)) return chunkKeys(scopeKey, head);
		return heldChunkKeys(scopeKey, head, [...new Set(located.flatMap((chunks) => chunks!))]);
	});
	const chunks = await store.getMany<StoredMessage[]>([...new Set(chunkKeysToRead)]);
	for (const message of chunks.flatMap((chunk) => chunk ?? []))
		if (wanted.has(message.id) && !found.has(message.id)) found.set(message.id, message);
	return found;
}
