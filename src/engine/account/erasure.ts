import { type AccountDependencies, userScopes } from './account';
import { withoutAuthors } from '../summaries/digest';
import type { Listings } from '../ledger/ScopeDirectory';
import { entryLifetimeMs } from '../ledger/entries';
import { DM_SERVER_ID, Keys, parseScopeKey } from '../store/keys';
import { eraseLongTerm } from './longTerm';
import type { ClearAllResult, ClearShortTermResult, ShortTermEntry } from '../schemas/types';

/**
 * `/session clear`: deletes the user's own short-term entries and removes their messages from the
 * shared channel memories that held them. From now on capture never stores again a message of theirs
 * written before this moment, so the history a bot re-fetches on the next turn does not undo it.
 */
export async function clearShortTerm(deps: AccountDependencies, userId: string, now: number): Promise<ClearShortTermResult> {
	await deps.settings.setBarrier(userId, 'clearedBefore', now);
	// A turn captured before the barrier was set may still be writing: erase after it.
	await deps.settled();
	const scopes = await userScopes(deps, userId);
	const { entriesDeleted } = await deleteOwn(deps, userId, scopes.own, scopes.listings, false);
	let messagesRemoved = 0;
	for (const [key, related] of await withRelated(deps, userId, scopes.shared)) {
		await deps.store.lock.runAll([key, ...related], async () => {
			messagesRemoved += (await strip(deps, key, userId, false, now)).removed;
			for (const other of related) await strip(deps, other, userId, false, now);
		});
	}
	return { entriesDeleted, messagesRemoved };
}

/**
 * `/session clear all`: erases everything of the user. Their own entries and DM archives go whole;
 * their messages leave every shared entry and archive (archives are rewritten, their markers kept as
 * tombstones so the messages are never archived again); summaries that may have been built from
 * their words are dropped; their profile and topics go; and capture never stores again a message of
 * theirs written before this moment. Other members' messages stay.
 */
export async function clearAll(deps: AccountDependencies, userId: string, now: number): Promise<ClearAllResult> {
	await deps.settings.setBarrier(userId, 'erasedBefore', now);
	await deps.settled();
	const scopes = await userScopes(deps, userId);
	const own = await deleteOwn(deps, userId, scopes.own, scopes.listings, true);
	const result: ClearAllResult = {
		entriesDeleted: own.entriesDeleted,
		messagesRemoved: 0,
		archivedMessagesRemoved: own.archivedMessagesRemoved,
		summariesDropped: own.summariesDropped,
		profileDeleted: false,
		topicsDeleted: 0
	};
	for (const [key, related] of await withRelated(deps, userId, scopes.shared)) {
		// The archive's head lock too: capture appends under it.
		await deps.store.lock.runAll([key, Keys.archiveHead(key), ...related], async () => {
			const stripped = await strip(deps, key, userId, true, now);
			result.messagesRemoved += stripped.removed;
			if (stripped.summaryDropped) result.summariesDropped++;
			for (const other of related) if ((await strip(deps, other, userId, true, now)).summaryDropped) result.summariesDropped++;
			result.archivedMessagesRemoved += await deps.archive.remove(key, (message) => message.authorId === userId);
			// Under the scope's lock, so a turn captured after the barrier is listed again, never lost.
			await deps.authors.remove(userId, [key]);
		});
	}
	// What is left of the author index names no scope that still holds their words.
	const handled = new Set([...scopes.own, ...scopes.shared]);
	await deps.authors.remove(
		userId,
		Object.keys(scopes.authored).filter((key) => !handled.has(key))
	);
	const longTerm = await eraseLongTerm(deps.store, userId);
	result.profileDeleted = longTerm.profileDeleted;
	result.topicsDeleted = longTerm.topicsDeleted;
	return result;
}

/** Deletes the user's own entries (and, for an erasure, their DMs' archives) and their listings. */
async function deleteOwn(deps: AccountDependencies, userId: string, keys: readonly string[], listings: Listings, archives: boolean) {
	let entriesDeleted = 0;
	let archivedMessagesRemoved = 0;
	let summariesDropped = 0;
	/** Channel directory → the user's keys listed there. */
	const channels = new Map<string, string[]>();
	for (const key of keys) {
		await deps.store.lock.runAll([key, Keys.archiveHead(key)], async () => {
			const entry = await deps.store.get<ShortTermEntry>(key);
			if (entry) {
				await deps.store.delete([key]);
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
			archivedMessagesRemoved += await deps.archive.remove(key, () => true);
			await deps.authors.remove(userId, [key]);
		});
	}
	// User-scope entries are listed under their user and, in a guild, under their channel too.
	await deps.directory.forget(Keys.userIndex(userId), keys);
	await Promise.all([...channels].map(([directory, channelKeys]) => deps.directory.forget(directory, channelKeys)));
	return { entriesDeleted, archivedMessagesRemoved, summariesDropped };
}

/** The directory of a server-scope key's channel (`shortterm:server:<serverId>:<channelId>…`). */
function channelDirectory(serverScopeKey: string): string {
	const parts = parseScopeKey(serverScopeKey)!;
	return Keys.channelIndex(parts.ownerId, parts.channelId);
}

/**
 * Each shared key with the other members' user-scope entries of the same channel and persona: they
 * carry the channel's summary, and entries written before user scopes kept only their owner's words
 * may hold the user's messages.
 */
async function withRelated(deps: AccountDependencies, userId: string, shared: readonly string[]): Promise<Map<string, string[]>> {
	const channelKeys = [...new Set(shared.flatMap((key) => (parseScopeKey(key) ? [channelDirectory(key)] : [])))];
	const directories = await deps.store.getMany<Listings>(channelKeys);
	const byChannel = new Map(channelKeys.map((directory, index) => [directory, Object.values(directories[index] ?? {})]));
	return new Map(
		shared.map((key) => {
			const parts = parseScopeKey(key)!;
			const related = (byChannel.get(channelDirectory(key)) ?? []).filter((listing) => {
				const other = parseScopeKey(listing.key);
				return (
					other?.scope === 'user' && other.ownerId !== userId && other.channelId === parts.channelId && other.personaId === parts.personaId
				);
			});
			return [key, related.map((listing) => listing.key)];
		})
	);
}

/**
 * Removes the user's messages and the digest lines citing them from one entry (and its summary when `dropSummary`); an entry left
 * with nothing, or past its lifetime without its summary, goes with its listings. Callers hold its lock.
 */
async function strip(
	deps: AccountDependencies,
	key: string,
	userId: string,
	dropSummary: boolean,
	now: number
): Promise<{ removed: number; summaryDropped: boolean }> {
	const entry = await deps.store.get<ShortTermEntry>(key);
	if (!entry) return { removed: 0, summaryDropped: false };
	const messages = entry.messages.filter((message) => message.authorId !== userId);
	const removed = entry.messages.length - messages.length;
	const toolSummaryDropped = dropSummary && (Boolean(entry.summary) || Object.keys(entry.categories ?? {}).length > 0);
	// A background summary cites its sources: it goes when it drew on the user's words (on erasure, always).
	const { backgroundSummary, ...rest } = entry;
	const ownIds = new Set(entry.messages.flatMap((message) => (message.authorId === userId ? [message.id] : [])));
	const backgroundDropped =
		Boolean(backgroundSummary) &&
		(dropSummary || backgroundSummary!.authorIds.includes(userId) || backgroundSummary!.sourceIds.some((id) => ownIds.has(id)));
	const summaryDropped = toolSummaryDropped || backgroundDropped;
	// Digest lines quote the messages they cite: those citing the user's go, as their messages do.
	const digest = withoutAuthors(entry.digest ?? [], new Set([userId]));
	const linesRemoved = (entry.digest?.length ?? 0) - digest.length;
	if (removed === 0 && linesRemoved === 0 && !summaryDropped) return { removed, summaryDropped };

	const next: ShortTermEntry = {
		...(backgroundDropped ? rest : entry),
		messages,
		digest: digest.length > 0 ? digest : null,
		...(toolSummaryDropped ? { summary: null, categories: null } : {})
	};
	const ttlMs = next.lastUpdated + entryLifetimeMs(next, deps.config()) - now;
	if (ttlMs > 0 && (messages.length > 0 || next.summary || next.categories || next.digest)) {
		await deps.store.set(key, next, ttlMs);
		await deps.directory.track([{ key, entry: next }], now);
		return { removed, summaryDropped };
	}
	await deps.store.delete([key]);
	if (entry.scope === 'server') await deps.directory.forget(Keys.serverIndex(entry.serverId), [key]);
	if (entry.scope === 'user' && entry.serverId !== DM_SERVER_ID)
		await deps.directory.forget(Keys.channelIndex(entry.serverId, entry.channelId), [key]);
	if (entry.scope === 'user' && entry.userId) await deps.directory.forget(Keys.userIndex(entry.userId), [key]);
	return { removed, summaryDropped };
}
