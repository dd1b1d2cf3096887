import { type ArchiveRevision, reviseArchives } from '../archive/reviseArchive';
import { cleanText, clip } from '../format/cleanText';
import type { ChannelArchiveListings, Listings, MessagesChange, MessagesChangeResult, ShortTermEntry } from '../schemas';
import { Records } from '../records/Records';
import { isScopeKey, parseScopeKey } from '../records/scopes';
import { voicesOf } from '../privacy/voices';
import { DM_SERVER_ID } from '../schemas/primitives';
import { forgottenBy, forgottenUntil, markForgottenMany } from './forgotten';
import type { LedgerParts } from './LedgerParts';
import { channelEntries } from './channelEntries';
import { replaceEntries } from './replaceEntry';
import { reviseEntry } from './stripEntry';

/** What {@link changeMessages} did, and the live entries whose background summary went (to be summarized again). */
export interface ChangedMessages {
	result: MessagesChangeResult;
	summariesDropped: { key: string; entry: ShortTermEntry }[];
}

/** A change that took nothing out and edited nothing: every count 0. */
export function noChanges(): MessagesChangeResult {
	return {
		entriesChanged: 0,
		messagesRemoved: 0,
		messagesEdited: 0,
		archivedMessagesRemoved: 0,
		archivedMessagesEdited: 0,
		digestLinesRemoved: 0,
		summariesDropped: 0
	};
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
 * list first, so no turn captured from then on stores it again. Several channels' changes (each channel once) go
 * in the same few round trips.
 */
export async function changeMessages(parts: LedgerParts, changes: readonly MessagesChange[], now: number): Promise<ChangedMessages> {
	const { store, config } = parts;
	const changed: ChangedMessages = {
		result: noChanges(),
		summariesDropped: []
	};
	if (changes.length === 0) return changed;
	const { result } = changed;
	// As long as any copy could come back: a later turn's history, within the longest a copy is kept.
	const until = forgottenUntil(config, now);
	const channels = changes.map((change) => {
		const serverId = change.serverId ?? DM_SERVER_ID;
		return { change, serverId, channel: { serverId, channelId: change.channelId }, revision: revisionOf(change) };
	});
	const forget = (ids: (channel: (typeof channels)[number]) => readonly string[]) =>
		markForgottenMany(
			parts,
			channels.map((channel) => ({ where: channel.channel, messageIds: ids(channel) })),
			now,
			until
		);
	// The forgotten lists land before any copy is revised; the channels' archive lists and directories are read meanwhile
	// (a round trip each saved), but a DM's directory when the change names no member: its archives name them.
	const asked = channels.map(({ change }) => change);
	const namesItsMembers = asked.every((change) => change.serverId !== null || change.userId !== undefined);
	const [, listedArchives, entriesFound] = await Promise.all([
		forget(({ revision }) => [...revision.deleted]),
		store.getMany<ChannelArchiveListings>(channels.map(({ channel }) => Records.channelArchives(channel.serverId, channel.channelId))),
		namesItsMembers ? channelEntries(parts, asked, []) : null
	]);
	const entryKeys = entriesFound ?? (await channelEntries(parts, asked, listedArchives));
	const archives = channels.map(({ change }, index) => {
		const liveKeys = entryKeys[index]!.filter((key) => isScopeKey(key, change.serverId === null ? 'user' : 'server'));
		return { liveKeys, archiveKeys: [...new Set([...Object.keys(listedArchives[index] ?? {}), ...liveKeys])] };
	});

	// Archives first: they hold the persona's replies to a deleted message even once those left every window.
	const repliesGone = channels.map(() => new Set<string>());
	const found = channels.map(() => ({ accounted: new Set<string>(), voices: new Set<string>() }));
	const revise = async (how: (channel: (typeof channels)[number]) => ArchiveRevision) => {
		const revisions = channels.flatMap((channel, index) =>
			archives[index]!.archiveKeys.map((scopeKey) => ({ index, scopeKey, revision: how(channel) }))
		);
		// Capture appends under the archives' head locks.
		const revised = await store.locked(
			revisions.map(({ scopeKey }) => Records.archiveHead(scopeKey)),
			() => reviseArchives(parts.archive, revisions)
		);
		revised.forEach(({ removed, edited, accounted, found: messages }, at) => {
			const { index, revision } = revisions[at]!;
			result.archivedMessagesRemoved += removed.length;
			result.archivedMessagesEdited += edited;
			for (const id of accounted) found[index]!.accounted.add(id);
			for (const message of [...messages, ...removed]) for (const voice of voicesOf(message)) found[index]!.voices.add(voice);
			for (const message of removed) {
				if (revision.deleted.has(message.id) || revision.dropped.has(message.id)) continue;
				// A reply the host gave no id comes back in later histories under another: it goes by its text too.
				for (const id of forgottenBy(message)) repliesGone[index]!.add(id);
			}
		});
	};
	await revise(({ revision }) => revision);
	if (repliesGone.some((ids) => ids.size > 0)) {
		await forget((channel) => [...repliesGone[channels.indexOf(channel)]!]);
		// Another persona's turn may have archived a reply as plain history (it names no message it answered): found by id.
		await revise((channel) => ({ deleted: new Set(repliesGone[channels.indexOf(channel)]), dropped: new Set(), texts: new Map() }));
	}

	// A guild channel's change whose every message a located archive found needs only the entries that can hold them.
	channels.forEach(({ change }, index) => {
		const { accounted, voices } = found[index]!;
		if (change.serverId !== null && change.messageIds.every((id) => accounted.has(id)))
			entryKeys[index] = entryKeys[index]!.filter((key) => mayHold(key, voices));
	});
	const keys = entryKeys.flat();
	const revisions = channels.flatMap(({ revision }, index) =>
		entryKeys[index]!.map(() => ({ ...revision, deleted: new Set([...revision.deleted, ...repliesGone[index]!]) }))
	);
	const live = new Set(archives.flatMap(({ liveKeys }) => liveKeys));
	await store.locked(keys.map(Records.entry), async () => {
		const stored = await store.getMany(keys.map(Records.entry));
		const replaced: { key: string; entry: ShortTermEntry }[] = [];
		stored.forEach((entry, at) => {
			const revised = entry ? reviseEntry(entry, revisions[at]!) : null;
			if (!revised?.entry) return;
			replaced.push({ key: keys[at]!, entry: revised.entry });
			result.entriesChanged++;
			result.messagesRemoved += revised.removed;
			result.messagesEdited += revised.edited;
			result.digestLinesRemoved += revised.linesRemoved;
			if (!revised.summaryDropped) return;
			result.summariesDropped++;
			if (live.has(keys[at]!)) changed.summariesDropped.push({ key: keys[at]!, entry: revised.entry });
		});
		await replaceEntries(parts, replaced, now);
	});
	return changed;
}

/**
 * Whether a guild channel's entry may hold messages whose voices (see voicesOf) are `voices`: every persona's server
 * scope, and the user scope of a member among them, which keeps only that member's words and the replies to their turns.
 */
function mayHold(key: string, voices: ReadonlySet<string>): boolean {
	const scope = parseScopeKey(key);
	return scope === null || scope.scope === 'server' || voices.has(scope.ownerId);
}
