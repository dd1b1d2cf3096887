import { removeFromArchive } from '../archive/removeFromArchive';
import { carriesWordsOf } from '../privacy/voices';
import type { ClearShortTermResult, Listings, ShortTermEntry } from '../schemas';
import { DM_SERVER_ID, Keys, liveScopeChannel, parseScopeKey } from '../store/keys';
import { changeMessages } from './changeMessages';
import { ForgottenReplies } from './forgotten';
import { memberScopes, withRelated } from './memberScopes';
import type { LedgerParts } from './LedgerParts';
import { replaceEntry } from './replaceEntry';
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

/** See {@link MessageLedger.forgetMember}; `within` a server, only what is of that server. */
export async function forgetMember(
	parts: LedgerParts,
	userId: string,
	what: MemberForgetting,
	now: number,
	within?: string
): Promise<ClearShortTermResult | MemberErasure> {
	const everything = what === 'everything';
	const scopes = await memberScopes(parts, userId, within);
	const replies = new ForgottenReplies();
	const own = await deleteOwn(parts, userId, scopes.own, scopes.listings, everything, replies);
	const result: MemberErasure = {
		entriesDeleted: own.entriesDeleted,
		messagesRemoved: 0,
		archivedMessagesRemoved: own.archivedMessagesRemoved,
		summariesDropped: own.summariesDropped
	};
	for (const [key, related] of await withRelated(parts, userId, scopes.shared)) {
		// The archive's head lock too: capture appends under it.
		await parts.store.lock.runAll([key, Keys.archiveHead(key), ...related], async () => {
			const stripped = await strip(parts, key, userId, everything, now, replies);
			result.messagesRemoved += stripped.removed;
			if (stripped.summaryDropped) result.summariesDropped++;
			for (const other of related) if ((await strip(parts, other, userId, everything, now, replies)).summaryDropped) result.summariesDropped++;
			// The archive names every reply to their turns, also those whose every short-term copy is a plain one another persona's
			// history carried (found by id below); clearing short-term memory takes those replies, and keeps their own messages.
			const archived = await removeFromArchive(
				parts.archive,
				key,
				(message) => carriesWordsOf(message, userId) && (everything || message.role === 'persona'),
				(removed) => replies.note(liveScopeChannel(key)!, removed)
			);
			if (!everything) return;
			result.archivedMessagesRemoved += archived;
			// Under the scope's lock, so a turn captured after the erasure's barrier is listed again, never lost.
			await parts.authors.remove(userId, [key]);
		});
	}
	// The replies to their turns leave every copy of their channels, and never come back with a later turn's history.
	for (const channel of replies.channels()) await changeMessages(parts, { ...channel, userId, kind: 'deleted' }, now);
	// Their own indexes name them and their scopes: one that cannot be read is not left behind.
	const indexes = [Keys.userIndex(userId), Keys.authorIndex(userId)];
	const unreadable = (await parts.store.getManyChecked(indexes)).flatMap(({ damaged }, index) => (damaged ? [indexes[index]!] : []));
	await parts.store.delete(unreadable);
	if (!everything) return { entriesDeleted: result.entriesDeleted, messagesRemoved: result.messagesRemoved };
	// What is left of the author index names no scope that still holds their words.
	const handled = new Set([...scopes.own, ...scopes.shared]);
	await parts.authors.remove(
		userId,
		Object.keys(scopes.authored).filter((key) => !handled.has(key))
	);
	return result;
}

/** Deletes the member's own entries (and, for an erasure, their DMs' archives) and their listings. */
async function deleteOwn(
	parts: LedgerParts,
	userId: string,
	keys: readonly string[],
	listings: Listings,
	archives: boolean,
	replies: ForgottenReplies
) {
	let entriesDeleted = 0;
	let archivedMessagesRemoved = 0;
	let summariesDropped = 0;
	/** Channel directory → the member's keys listed there. */
	const channels = new Map<string, string[]>();
	for (const key of keys) {
		await parts.store.lock.runAll([key, Keys.archiveHead(key)], async () => {
			const { value: entry, damaged } = await parts.store.getChecked<ShortTermEntry>(key);
			// A row that cannot be read may hold anything of theirs: it goes too.
			if (damaged) await parts.store.delete([key]);
			if (entry) {
				await parts.store.delete([key]);
				// Every persona line of a DM is theirs; in a guild, the replies to their turns.
				const theirs = entry.serverId === DM_SERVER_ID ? entry.messages : entry.messages.filter((message) => carriesWordsOf(message, userId));
				replies.note(entry, theirs);
				entriesDeleted++;
				if (entry.summary || entry.backgroundSummary || Object.keys(entry.categories ?? {}).length > 0) summariesDropped++;
			}
			const serverId = entry?.serverId ?? listings[key]?.serverId;
			const channelId = entry?.channelId ?? listings[key]?.channelId;
			if (serverId && channelId && serverId !== DM_SERVER_ID) {
				const directory = Keys.channelIndex(serverId, channelId);
				channels.set(directory, [...(channels.get(directory) ?? []), key]);
			}
			if (!archives) return;
			archivedMessagesRemoved += await removeFromArchive(
				parts.archive,
				key,
				() => true,
				(removed) => replies.note(liveScopeChannel(key)!, removed)
			);
			await parts.authors.remove(userId, [key]);
		});
	}
	// User-scope entries are listed under their user and, in a guild, under their channel too.
	await parts.directory.forget(Keys.userIndex(userId), keys);
	await Promise.all([...channels].map(([directory, channelKeys]) => parts.directory.forget(directory, channelKeys)));
	return { entriesDeleted, archivedMessagesRemoved, summariesDropped };
}

/**
 * Takes the member's words out of one entry (see {@link stripAuthor}); an entry left with nothing, or
 * past its lifetime without its summary, goes with its listings. Callers hold its lock.
 */
async function strip(
	parts: LedgerParts,
	key: string,
	userId: string,
	dropSummary: boolean,
	now: number,
	replies: ForgottenReplies
): Promise<{ removed: number; summaryDropped: boolean }> {
	const { value: entry, damaged } = await parts.store.getChecked<ShortTermEntry>(key);
	if (!entry) {
		// A shared entry that cannot be read may hold their words, and serves nobody: it goes, with its listings.
		if (damaged) await forgetUnreadable(parts, key);
		return { removed: 0, summaryDropped: false };
	}
	const stripped = stripAuthor(entry, userId, dropSummary);
	replies.note(
		entry,
		entry.messages.filter((message) => carriesWordsOf(message, userId))
	);
	if (stripped.entry) await replaceEntry(parts, key, stripped.entry, now);
	return stripped;
}

/** Deletes an entry that cannot be read, and its listings in the directories its key names. */
async function forgetUnreadable(parts: LedgerParts, key: string): Promise<void> {
	const scope = parseScopeKey(key);
	await parts.store.delete([key]);
	if (scope?.scope === 'server') await parts.directory.forget(Keys.serverIndex(scope.ownerId), [key]);
	if (scope?.scope === 'user') await parts.directory.forget(Keys.userIndex(scope.ownerId), [key]);
}
