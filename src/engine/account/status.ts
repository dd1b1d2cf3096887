import { heldChunks } from '../archive/Archive';
import { entryLifetimeMs, isEntryOf, isExpired } from '../ledger/entries';
import type { ArchiveHead, MemoryStatus, ShortTermEntry, StatusLocation } from '../schemas';
import { Records } from '../records/Records';
import { conversationKeys } from '../records/scopes';
import type { AccountParts } from './AccountParts';

/** `/session status`: what memory holds about the user. */
export async function status(parts: AccountParts, userId: string, where: StatusLocation | undefined, now: number): Promise<MemoryStatus> {
	const { config, ledger, store } = parts;
	// Without a persona, "this channel" is every persona's memory of it, found through the directories.
	const anyPersona = where !== undefined && where.personaId === undefined;
	const liveKey = where && !anyPersona ? conversationKeys({ userId, ...where }, where.personaId).liveKey : undefined;
	const [settings, authored, contextSources, [listings, profile, topics, entry, channelListings]] = await Promise.all([
		parts.settings.user(userId),
		ledger.authors.listings(userId),
		parts.sources.count(userId, now),
		store.read([
			Records.userDirectory(userId),
			Records.profile(userId),
			Records.topics(userId),
			liveKey ?? null,
			anyPersona && where.serverId !== null ? Records.serverDirectory(where.serverId) : null
		] as const)
	]);
	let entries = liveKey && entry ? [entry] : [];
	if (anyPersona) {
		const scope = where.serverId === null ? 'user' : 'server';
		const keys = Object.values((where.serverId === null ? listings : channelListings) ?? {})
			.filter((listing) => listing.channelId === where.channelId && listing.scope === scope && listing.expiresAt > now)
			.map((listing) => listing.key);
		entries = (await store.getMany(keys.map(Records.entry))).filter((value): value is ShortTermEntry => value !== undefined);
	}
	// Counts of archives that are gone (expired, or wiped by a moderator) no longer count.
	const archived = Object.entries(authored).filter(([, listing]) => listing.count > 0);
	const heads = await store.getMany<ArchiveHead>(archived.map(([key]) => Records.archiveHead(key)));
	const archivedMessages = archived.reduce((sum, [, listing], index) => sum + (heldChunks(heads[index]) > 0 ? listing.count : 0), 0);
	// A channel id names one channel: a member scope of the same id in another server (or a DM) is not this channel's.
	const live = entries.filter((value) => !isExpired(value, config, now) && isEntryOf(value, where!));
	return {
		privacyLevel: settings.privacyLevel,
		crossServerOptIn: settings.crossServerOptIn,
		storage: store.kind,
		shortTermEntries: Object.values(listings ?? {}).filter((listing) => listing.expiresAt > now).length,
		archivedMessages,
		hasProfile: profile !== undefined,
		topics: Object.keys(topics ?? {}).length,
		contextSources,
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
