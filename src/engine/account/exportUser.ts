import { carriesWordsOf } from '../privacy/voices';
import { entryLifetimeMs, isExpired } from '../ledger/entries';
import type { ExportedEntry, ExportedMessage, ShortTermEntry, StoredMessage, StoredTopics, UserExport, UserProfile } from '../schemas';
import { Records } from '../records/Records';
import { parseScopeKey } from '../records/scopes';
import { DM_SERVER_ID } from '../schemas/primitives';
import type { AccountParts } from './AccountParts';

/** Bumped whenever the shape of {@link UserExport} changes. */
export const EXPORT_SCHEMA_VERSION = 1;

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
export async function exportUser(parts: AccountParts, userId: string, now: number): Promise<UserExport> {
	const { config, ledger, store } = parts;
	const [settings, scopes, [profile, topics]] = await Promise.all([
		parts.settings.user(userId),
		ledger.memberScopes(userId),
		store.getMany<unknown>([Records.profile(userId), Records.topics(userId)]) as Promise<[UserProfile?, StoredTopics?]>
	]);
	// Their words, and the personas' replies to their turns; in a guild, nothing answering anyone else.
	const mine = (message: StoredMessage) => carriesWordsOf(message, userId);
	const conversation = mine;
	// A DM is the user's alone: every persona line there, and a member message with no author, is theirs.
	const inDm = (message: StoredMessage) => mine(message) || message.role === 'persona' || !message.authorId;

	const own = (await store.getMany(scopes.own.map(Records.entry))).flatMap((entry): ExportedEntry[] => {
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

	const sharedShortTerm = (await store.getMany(scopes.shared.map(Records.entry))).flatMap((entry) =>
		entry && !isExpired(entry, config, now) ? entry.messages.filter(mine).map((message) => exported(message, entry)) : []
	);

	// The user's own DM archive is their conversation; elsewhere only their own words are theirs.
	const archives = Object.keys(scopes.authored).flatMap((key) => {
		const place = parseScopeKey(key);
		if (!place || (place.scope === 'user' && place.ownerId !== userId)) return [];
		const ownScope = place.scope === 'user';
		return [
			{ key, ownScope, where: { serverId: ownScope ? DM_SERVER_ID : place.ownerId, channelId: place.channelId, personaId: place.personaId } }
		];
	});
	const stored = await ledger.archive.readMany(archives.map(({ key }) => key));
	const archive = archives.flatMap(({ ownScope, where }, index) =>
		stored[index]!.filter((message) => (ownScope ? inDm(message) : mine(message))).map((message) => exported(message, where))
	);

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
