import { type ArchiveHead, heldChunks } from '../archive/Archive';
import type { AuthorListings } from '../ledger/AuthorIndex';
import type { CaptureDependencies } from '../capture/recordTurn';
import type { Listings } from '../ledger/ScopeDirectory';
import { entryLifetimeMs, isExpired } from '../ledger/entries';
import { DM_SERVER_ID, Keys, parseScopeKey } from '../store/keys';
import type { StoredTopics } from './longTerm';
import type { ExportedEntry, ExportedMessage, MemoryStatus, ShortTermEntry, StatusLocation, StoredMessage, UserExport, UserProfile } from '../schemas/types';

/** Bumped whenever the shape of {@link UserExport} changes. */
export const EXPORT_SCHEMA_VERSION = 1;

/** What the `/session` operations need from the engine: the parts capture writes through, and a way to wait for it. */
export interface AccountDependencies extends Omit<CaptureDependencies, 'onSkip'> {
	/** Resolves once every capture started before the call has finished. */
	settled: () => Promise<void>;
}

/** Every scope holding something of one user, found through the directories, never by a scan. */
export interface UserScopes {
	/** The user's own user-scope keys: their short-term entries and their DMs' archives. */
	own: string[];
	/** Server-scope keys (short-term entry and archive) that held the user's messages. */
	shared: string[];
	/** The user index as stored, expired listings included. */
	listings: Listings;
	/** The author index, with counts not yet written. */
	authored: AuthorListings;
}

export async function userScopes(deps: Pick<AccountDependencies, 'store' | 'authors'>, userId: string): Promise<UserScopes> {
	const [listings = {}, authored] = await Promise.all([deps.store.get<Listings>(Keys.userIndex(userId)), deps.authors.listings(userId)]);
	const own = new Set(Object.keys(listings));
	const shared = new Set<string>();
	for (const key of Object.keys(authored)) {
		const parts = parseScopeKey(key);
		if (parts?.scope === 'server') shared.add(key);
		else if (parts?.ownerId === userId) own.add(key);
	}
	// Where the user triggered a turn, their words went to the server scope too.
	for (const listing of Object.values(listings))
		if (listing.serverId !== DM_SERVER_ID) shared.add(Keys.serverScope(listing.serverId, listing.channelId, listing.personaId));
	return { own: [...own], shared: [...shared], listings, authored };
}

/** `/session status`: what memory holds about the user. */
export async function status(deps: AccountDependencies, userId: string, where: StatusLocation | undefined, now: number): Promise<MemoryStatus> {
	const config = deps.config();
	// Without a persona, "this channel" is every persona's memory of it, found through the directories.
	const anyPersona = where !== undefined && where.personaId === undefined;
	const liveKey =
		where && !anyPersona
			? where.serverId === null
				? Keys.userScope(userId, where.channelId, where.personaId)
				: Keys.serverScope(where.serverId, where.channelId, where.personaId)
			: undefined;
	const serverIndex = anyPersona && where.serverId !== null ? [Keys.serverIndex(where.serverId)] : [];
	const [settings, authored, [listings, profile, topics, entry, channelListings]] = await Promise.all([
		deps.settings.user(userId),
		deps.authors.listings(userId),
		deps.store.getMany<unknown>([
			Keys.userIndex(userId),
			Keys.profile(userId),
			Keys.topics(userId),
			liveKey ?? Keys.userIndex(userId),
			...serverIndex
		]) as Promise<[Listings?, UserProfile?, StoredTopics?, ShortTermEntry?, Listings?]>
	]);
	let entries = liveKey && entry ? [entry] : [];
	if (anyPersona) {
		const scope = where.serverId === null ? 'user' : 'server';
		const keys = Object.values((where.serverId === null ? listings : channelListings) ?? {})
			.filter((listing) => listing.channelId === where.channelId && listing.scope === scope && listing.expiresAt > now)
			.map((listing) => listing.key);
		entries = (await deps.store.getMany<ShortTermEntry>(keys)).filter((value): value is ShortTermEntry => value !== undefined);
	}
	// Counts of archives that are gone (expired, or wiped by a moderator) no longer count.
	const archived = Object.entries(authored).filter(([, listing]) => listing.count > 0);
	const heads = await deps.store.getMany<ArchiveHead>(archived.map(([key]) => Keys.archiveHead(key)));
	const archivedMessages = archived.reduce((sum, [, listing], index) => sum + (heldChunks(heads[index]) > 0 ? listing.count : 0), 0);
	const live = entries.filter((value) => !isExpired(value, config, now));
	return {
		privacyLevel: settings.privacyLevel,
		crossServerOptIn: settings.crossServerOptIn,
		storage: deps.store.kind,
		shortTermEntries: Object.values(listings ?? {}).filter((listing) => listing.expiresAt > now).length,
		archivedMessages,
		hasProfile: profile !== undefined,
		topics: Object.keys(topics ?? {}).length,
		...(live.length > 0
			? {
					current: {
						messages: live.reduce((sum, value) => sum + value.messages.length, 0),
						hasSummary: live.some((value) => Boolean(value.summary) || Object.keys(value.categories ?? {}).length > 0),
						expiresInMs: Math.max(...live.map((value) => value.lastUpdated + entryLifetimeMs(value, config) - now))
					}
				}
			: {}),
		ttl: { shortTermHours: config.ttlHours, summaryHours: config.summaryTtlHours, archiveDays: config.archiveRetentionDays }
	};
}

const iso = (ts: number) => new Date(ts).toISOString();

function exported(message: StoredMessage, where: { serverId: string; channelId: string; personaId: string | null }): ExportedMessage {
	return {
		id: message.id,
		role: message.role,
		serverId: where.serverId,
		channelId: where.channelId,
		personaId: message.personaId ?? where.personaId,
		...(message.authorName === undefined ? {} : { authorName: message.authorName }),
		text: message.text,
		at: iso(message.ts)
	};
}

/**
 * `/session export`: everything stored about the user and nothing of anyone else: their own
 * conversations (their words and the personas' replies), their words in shared channel memories and
 * archives, their profile and topics. Summaries of guild conversations are shared with the channel
 * and may hold other members' words, so only DM summaries are included.
 */
export async function exportUser(deps: AccountDependencies, userId: string, now: number): Promise<UserExport> {
	const config = deps.config();
	const [settings, scopes, [profile, topics]] = await Promise.all([
		deps.settings.user(userId),
		userScopes(deps, userId),
		deps.store.getMany<unknown>([Keys.profile(userId), Keys.topics(userId)]) as Promise<[UserProfile?, StoredTopics?]>
	]);
	const mine = (message: StoredMessage) => message.authorId === userId;
	const conversation = (message: StoredMessage) => mine(message) || message.role === 'persona';
	// In a DM a member message with no author can only be the user's.
	const inDm = (message: StoredMessage) => conversation(message) || !message.authorId;

	const own = (await deps.store.getMany<ShortTermEntry>(scopes.own)).flatMap((entry): ExportedEntry[] => {
		if (!entry || isExpired(entry, config, now)) return [];
		const dm = entry.serverId === DM_SERVER_ID;
		return [
			{
				serverId: entry.serverId,
				channelId: entry.channelId,
				parentChannelId: entry.parentChannelId,
				personaId: entry.personaId,
				summary: dm ? entry.summary : null,
				categories: dm ? entry.categories : null,
				lastUpdated: iso(entry.lastUpdated),
				expiresAt: iso(entry.lastUpdated + entryLifetimeMs(entry, config)),
				messages: entry.messages.filter(dm ? inDm : conversation).map((message) => exported(message, entry))
			}
		];
	});

	const sharedShortTerm = (await deps.store.getMany<ShortTermEntry>(scopes.shared)).flatMap((entry) =>
		entry && !isExpired(entry, config, now) ? entry.messages.filter(mine).map((message) => exported(message, entry)) : []
	);

	const archive: ExportedMessage[] = [];
	for (const key of Object.keys(scopes.authored)) {
		const parts = parseScopeKey(key);
		if (!parts) continue;
		// The user's own DM archive is their conversation; elsewhere only their own words are theirs.
		const ownScope = parts.scope === 'user';
		if (ownScope && parts.ownerId !== userId) continue;
		const where = { serverId: ownScope ? DM_SERVER_ID : parts.ownerId, channelId: parts.channelId, personaId: parts.personaId };
		for (const message of await deps.archive.read(key)) if (ownScope ? inDm(message) : mine(message)) archive.push(exported(message, where));
	}

	return {
		schemaVersion: EXPORT_SCHEMA_VERSION,
		exportedAt: iso(now),
		userId,
		settings: {
			privacyLevel: settings.privacyLevel,
			crossServerOptIn: settings.crossServerOptIn,
			...(settings.clearedBefore === undefined ? {} : { clearedBefore: iso(settings.clearedBefore) }),
			...(settings.erasedBefore === undefined ? {} : { erasedBefore: iso(settings.erasedBefore) })
		},
		shortTerm: own,
		sharedShortTerm,
		archive,
		profile: profile ?? null,
		topics: Object.entries(topics ?? {})
			.map(([slug, topic]) => ({ slug, ...topic }))
			.sort((a, b) => b.updatedAt - a.updatedAt)
	};
}
