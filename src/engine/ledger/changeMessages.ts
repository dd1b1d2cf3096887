import { type ArchiveRevision, reviseArchive } from '../archive/reviseArchive';
import { cleanText, clip } from '../capture/cleanText';
import type { Listings, MessagesChange, MessagesChangeResult, ShortTermEntry } from '../schemas';
import { DM_SERVER_ID, Keys, parseScopeKey } from '../store/keys';
import { forgottenUntil, markForgotten } from './forgotten';
import type { LedgerParts } from './LedgerParts';
import { replaceEntry } from './replaceEntry';
import { reviseEntry } from './stripEntry';

/** What {@link changeMessages} did, and the live entries whose background summary went (to be summarized again). */
export interface ChangedMessages {
	result: MessagesChangeResult;
	summariesDropped: { key: string; entry: ShortTermEntry }[];
}

/** The change as every copy takes it: capture cleans and cuts a new text as it does a captured one. */
export function revisionOf(change: MessagesChange): ArchiveRevision {
	if (change.kind === 'deleted') return { deleted: new Set(change.messageIds), dropped: new Set(), texts: new Map() };
	const texts = new Map<string, string>();
	const dropped = new Set<string>();
	for (const id of change.messageIds) {
		const text = change.texts?.[id];
		const cleaned = text === undefined ? '' : clip(cleanText(text));
		// An edit that leaves nothing to keep (an embed alone, a text emptied) is kept by no copy.
		if (cleaned.length > 0) texts.set(id, cleaned);
		else dropped.add(id);
	}
	return { deleted: new Set(), dropped, texts };
}

/**
 * Messages of one channel edited or deleted on Discord, in every copy the ledger knows: the short-term
 * entries of every persona and member there (through the server's, the channel's or the DM member's
 * directory, expired listings included while their entries may still be stored), every persona's archive
 * of the channel (through the channel's archive list) with its search index, the digest lines that cite
 * them and the background summaries built from them. A deleted message goes on the channel's forgotten
 * list first, so no turn captured from then on stores it again.
 */
export async function changeMessages(parts: LedgerParts, change: MessagesChange, now: number): Promise<ChangedMessages> {
	const { store, config } = parts;
	const serverId = change.serverId ?? DM_SERVER_ID;
	const revision = revisionOf(change);
	const channel = { serverId, channelId: change.channelId };
	// As long as any copy could come back: a later turn's history, within the longest a copy is kept.
	const until = forgottenUntil(config, now);
	if (revision.deleted.size > 0) await markForgotten(parts, channel, [...revision.deleted], now, until);
	const listedArchives = await parts.channelArchives.of(serverId, change.channelId);
	const entryKeys = await channelEntries(parts, change, serverId, listedArchives);
	const liveKeys = entryKeys.filter((key) => key.startsWith(change.serverId === null ? 'shortterm:user:' : 'shortterm:server:'));
	const archiveKeys = [...new Set([...listedArchives, ...liveKeys])];

	const changed: ChangedMessages = {
		result: {
			entriesChanged: 0,
			messagesRemoved: 0,
			messagesEdited: 0,
			archivedMessagesRemoved: 0,
			archivedMessagesEdited: 0,
			digestLinesRemoved: 0,
			summariesDropped: 0
		},
		summariesDropped: []
	};
	const { result } = changed;
	// Archives first: they hold the persona's replies to a deleted message even once those left every window.
	const repliesGone = new Set<string>();
	const revise = async (key: string, how: ArchiveRevision) => {
		// Capture appends under the archive's head lock.
		const revised = await store.lock.run(Keys.archiveHead(key), () => reviseArchive(parts.archive, key, how));
		result.archivedMessagesRemoved += revised.removed.length;
		result.archivedMessagesEdited += revised.edited;
		for (const message of revised.removed) if (!how.deleted.has(message.id) && !how.dropped.has(message.id)) repliesGone.add(message.id);
	};
	for (const key of archiveKeys) await revise(key, revision);
	if (repliesGone.size > 0) {
		await markForgotten(parts, channel, [...repliesGone], now, until);
		// Another persona's turn may have archived a reply as plain history (it names no message it answered): found by id.
		const replies: ArchiveRevision = { deleted: new Set(repliesGone), dropped: new Set(), texts: new Map() };
		for (const key of archiveKeys) await revise(key, replies);
	}
	const everything: ArchiveRevision = { ...revision, deleted: new Set([...revision.deleted, ...repliesGone]) };
	for (const key of entryKeys) {
		await store.lock.run(key, async () => {
			const entry = await store.get<ShortTermEntry>(key);
			const revised = entry ? reviseEntry(entry, everything) : null;
			if (!revised?.entry) return;
			await replaceEntry(parts, key, revised.entry, now);
			result.entriesChanged++;
			result.messagesRemoved += revised.removed;
			result.messagesEdited += revised.edited;
			result.digestLinesRemoved += revised.linesRemoved;
			if (!revised.summaryDropped) return;
			result.summariesDropped++;
			if (liveKeys.includes(key)) changed.summariesDropped.push({ key, entry: revised.entry });
		});
	}
	return changed;
}

/**
 * The short-term entries of the channel: in a guild, every persona's server scope and every member's user
 * scope there; in a DM, the member's user scopes of that DM channel.
 */
async function channelEntries(parts: LedgerParts, change: MessagesChange, serverId: string, listedArchives: readonly string[]): Promise<string[]> {
	if (change.serverId === null) {
		// The DM's member: as the host named them, or as the DM's archives name them (`shortterm:user:<userId>:…`).
		const members = change.userId ? [change.userId] : [...new Set(listedArchives.flatMap((key) => parseScopeKey(key)?.ownerId ?? []))];
		const directories = await parts.store.getMany<Listings>(members.map((userId) => Keys.userIndex(userId)));
		return directories
			.flatMap((listings) => Object.values(listings ?? {}))
			.filter((listing) => listing.serverId === DM_SERVER_ID && listing.channelId === change.channelId)
			.map((listing) => listing.key);
	}
	const [server = {}, channel = {}] = await parts.store.getMany<Listings>([
		Keys.serverIndex(serverId),
		Keys.channelIndex(serverId, change.channelId)
	]);
	return [
		...Object.values(server).filter((listing) => listing.scope === 'server' && listing.channelId === change.channelId),
		...Object.values(channel).filter((listing) => listing.scope === 'user')
	].map((listing) => listing.key);
}
