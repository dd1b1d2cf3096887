import { removeFromArchives } from '../archive/removeFromArchive';
import { carriesWordsOf } from '../privacy/voices';
import type { ClearShortTermResult, Listings, ShortTermEntry, StoredMessage } from '../schemas';
import { contextSourceKeys } from '../records/contextSourceRecords';
import { type RecordKey, Records } from '../records/Records';
import { liveScopeChannel, parseScopeKey } from '../records/scopes';
import { DM_SERVER_ID } from '../schemas/primitives';
import { changeMessages } from './changeMessages';
import { ForgottenReplies } from './forgotten';
import { memberScopes, withRelated } from './memberScopes';
import type { LedgerParts } from './LedgerParts';
import { listingsOf, replaceEntries } from './replaceEntry';
import { stripAuthor } from './stripEntry';

/** How much of a member to forget: their short-term memory, or every copy of their words. */
export type MemberForgetting = 'short-term' | 'everything';

/** What forgetting everything of a member removed from the copies of their words. */
export interface MemberErasure extends ClearShortTermResult {
	/** Archived messages removed (the member's own, and whole conversations of their DMs). */
	archivedMessagesRemoved: number;
	/** Summaries dropped because they may have been built from the member's messages. */
	summariesDropped: number;
}

/**
 * See {@link MessageLedger.forgetMember}; `within` a server, only what is of that server. Every copy is read, changed and
 * written in the same few round trips, whatever the number of scopes: the entries at once, the archives at once, the
 * directories and indexes at once, then the replies to the member's turns by id, every channel at once.
 */
export async function forgetMember(
	parts: LedgerParts,
	userId: string,
	what: MemberForgetting,
	now: number,
	within?: string
): Promise<ClearShortTermResult | MemberErasure> {
	const everything = what === 'everything';
	const scopes = await memberScopes(parts, userId, within);
	const related = [...new Set([...(await withRelated(parts, userId, scopes.shared)).values()].flat())];
	const replies = new ForgottenReplies();
	const result: MemberErasure = { entriesDeleted: 0, messagesRemoved: 0, archivedMessagesRemoved: 0, summariesDropped: 0 };
	// Their own entries go whole; on an erasure, their DMs' archives too (a guild member scope has none), and on a clear the
	// persona's lines there, every one a reply to them.
	const own = new Set(scopes.own);
	const archives = [...scopes.own, ...scopes.shared];
	const entryKeys = [...new Set([...scopes.own, ...scopes.shared, ...related])];

	// The archives' head locks too: capture appends under them.
	await parts.store.locked([...entryKeys.map(Records.entry), ...archives.map((key) => Records.archiveHead(key))], async () => {
		const read = await parts.store.getManyChecked(entryKeys.map(Records.entry));
		const replaced: { key: string; entry: ShortTermEntry }[] = [];
		const unreadable: string[] = [];
		/** The member's own entries as they were, for their listings. */
		const deleted: { key: string; entry: ShortTermEntry }[] = [];
		read.forEach(({ value: entry, damaged }, index) => {
			const key = entryKeys[index]!;
			// A row that cannot be read may hold anything of theirs, and serves nobody: it goes, with its listings.
			if (!entry) {
				if (damaged) unreadable.push(key);
				return;
			}
			// Every persona line of a DM is theirs; elsewhere, their messages and the replies to their turns.
			replies.note(
				entry,
				own.has(key) && entry.serverId === DM_SERVER_ID ? entry.messages : entry.messages.filter((message) => carriesWordsOf(message, userId))
			);
			if (own.has(key)) {
				deleted.push({ key, entry });
				result.entriesDeleted++;
				if (entry.summary || entry.backgroundSummary || Object.keys(entry.categories ?? {}).length > 0) result.summariesDropped++;
				return;
			}
			const stripped = stripAuthor(entry, userId, everything);
			if (scopes.shared.includes(key)) result.messagesRemoved += stripped.removed;
			if (stripped.summaryDropped) result.summariesDropped++;
			if (stripped.entry) replaced.push({ key, entry: stripped.entry });
		});
		await parts.store.delete([...deleted.map(({ key }) => key), ...unreadable].map(Records.entry));
		await replaceEntries(parts, replaced, now);
		await parts.directory.forgetMany(listingsGone(userId, scopes.own, deleted, unreadable, scopes.listings));

		// The archive names every reply to their turns, also those whose every short-term copy is a plain one another persona's
		// history carried (found by id below); clearing short-term memory takes those replies, and keeps their own messages.
		const removable = (message: StoredMessage, scopeKey: string) =>
			(own.has(scopeKey) || carriesWordsOf(message, userId)) && (everything || message.role === 'persona');
		// In a shared located archive, only the chunks that hold their words (their own archives go whole).
		const authored = scopes.shared.map((scopeKey) => Records.archiveAuthorChunks(scopeKey, userId));
		const chunks = await parts.store.setMembers(authored);
		const within = new Map(scopes.shared.map((scopeKey, index) => [scopeKey, chunks[index]!.map(Number)]));
		const removed = await removeFromArchives(
			parts.archive,
			archives,
			removable,
			(scopeKey, messages) => replies.note(liveScopeChannel(scopeKey)!, messages),
			within
		);
		if (everything) result.archivedMessagesRemoved = removed.reduce((sum, count) => sum + count, 0);
		// Under the scopes' locks, so a turn captured after the erasure's barrier is listed again, never lost.
		if (everything) {
			await parts.authors.remove(userId, archives);
			await parts.store.deleteSets(archives.map((scopeKey) => Records.archiveAuthorChunks(scopeKey, userId)));
		}
	});
	// The replies to their turns leave every copy of their channels, and never come back with a later turn's history.
	await changeMessages(
		parts,
		replies.channels().map((channel) => ({ ...channel, userId, kind: 'deleted' })),
		now
	);
	// What their replies' contexts drew on goes with them, whatever the context was of.
	await parts.store.delete(contextSourceKeys(userId));
	// Their own indexes name them and their scopes: one that cannot be read is not left behind.
	const indexes = [Records.userDirectory(userId), Records.authors(userId)];
	const unreadableIndexes = (await parts.store.getManyChecked<unknown>(indexes)).flatMap(({ damaged }, index) =>
		damaged ? [indexes[index]!] : []
	);
	await parts.store.delete(unreadableIndexes);
	if (!everything) return { entriesDeleted: result.entriesDeleted, messagesRemoved: result.messagesRemoved };
	// What is left of the author index names no scope that still holds their words.
	const handled = new Set(archives);
	await parts.authors.remove(
		userId,
		Object.keys(scopes.authored).filter((key) => !handled.has(key))
	);
	return result;
}

/**
 * The listings of what went (directory key → entry keys): each of the member's own entries under their directory (the
 * expired and unreadable ones too) and, in a guild, their channel's; a shared row that could not be read under the
 * directory its key names.
 */
function listingsGone(
	userId: string,
	own: readonly string[],
	deleted: readonly { key: string; entry: ShortTermEntry }[],
	unreadable: readonly string[],
	listings: Listings
): Map<RecordKey<Listings>, string[]> {
	const byDirectory = listingsOf(deleted);
	const list = (directory: RecordKey<Listings>, key: string) =>
		byDirectory.set(directory, [...new Set([...(byDirectory.get(directory) ?? []), key])]);
	const found = new Set(deleted.map(({ key }) => key));
	for (const key of own) {
		if (found.has(key)) continue;
		list(Records.userDirectory(userId), key);
		const listing = listings[key];
		if (listing && listing.serverId !== DM_SERVER_ID) list(Records.channelDirectory(listing.serverId, listing.channelId), key);
	}
	for (const key of unreadable) {
		const scope = parseScopeKey(key);
		if (scope?.scope === 'server') list(Records.serverDirectory(scope.ownerId), key);
		if (scope?.scope === 'user' && scope.ownerId !== userId) list(Records.userDirectory(scope.ownerId), key);
	}
	return byDirectory;
}
