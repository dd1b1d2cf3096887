import { z } from 'zod';
import type { Archive } from '../archive/Archive';
import type { MemoryConfig } from '../config';
import { entryLifetimeMs, isExpired } from '../ledger/entries';
import { archiveScope, parseScopeKey } from '../records/scopes';
import { DM_SERVER_ID } from '../schemas/primitives';
import type { RecordStore } from '../records/RecordStore';
import { type BackgroundSummary, type DigestLine, IdSchema, ServerIdSchema, type ShortTermEntry, type StoredMessage } from '../schemas';
import { Records } from '../records/Records';

/** Which channel to inspect: in one server, or wherever it is (a DM channel has no server). */
export interface ChannelQuery {
	/** The channel (or thread) to inspect. */
	channelId: string;
	/** The channel's server, or null for a DM; left out, the channel's memory wherever it is. */
	serverId?: string | null;
	/** How many of the newest archived messages to show per scope: a whole number, 0 or more. @default 10 */
	latest?: number;
}

/** What {@link ChannelQuery} accepts. */
export const ChannelQuerySchema = z.object({
	channelId: IdSchema,
	serverId: ServerIdSchema.nullable().optional(),
	latest: z.number().int().min(0).optional()
}) satisfies z.ZodType<ChannelQuery>;

/** One live scope of a channel (one persona's memory of it), as an operator sees it. */
export interface ScopeInspection {
	/** The scope's key in the store. */
	key: string;
	/** A member's own conversation (`user`: in a DM) or the channel's shared one (`server`). */
	scope: 'user' | 'server';
	/** `"DM"` for a DM. */
	serverId: string;
	/** The member a DM scope belongs to; null for a server scope. */
	userId: string | null;
	/** The persona whose memory it is; null for the bot's default persona. */
	personaId: string | null;
	/** The short-term entry; null when it expired or is gone (its archive may remain). */
	entry: {
		messages: StoredMessage[];
		summary: string | null;
		categories: Record<string, string> | null;
		digest: DigestLine[];
		backgroundSummary: BackgroundSummary | null;
		lastUpdated: number;
		expiresAt: number;
	} | null;
	/** The scope's archive: how many messages, their span, and the newest ones, oldest first. */
	archive: { messages: number; oldest: number | null; newest: number | null; latest: StoredMessage[] };
}

/** The live memory of one channel (`sapphire-memory inspect --channel`). */
export interface ChannelInspection {
	/** The channel inspected. */
	channelId: string;
	/** Its server; null for a DM. */
	serverId: string | null;
	/** Its live scopes, one per persona (and, in a DM, per member). */
	scopes: ScopeInspection[];
}

/** What {@link inspectChannel} reads through. */
export interface InspectDependencies {
	store: RecordStore;
	archive: Archive;
	config: MemoryConfig;
}

/**
 * The live scopes of a channel (server scope in a guild, user scope in a DM), every persona's, with
 * their entries and archives. It scans the namespace's keys: a tool for operators, never the reply path.
 */
export async function inspectChannel(deps: InspectDependencies, query: ChannelQuery, now: number): Promise<ChannelInspection> {
	const found = new Set<string>();
	for await (const [key] of deps.store.scan()) {
		// An archive outlives its entry: its keys name the scope too.
		const scopeKey = key.startsWith('archive:') ? archiveScope(key) : key;
		const parts = parseScopeKey(scopeKey);
		if (!parts || parts.channelId !== query.channelId) continue;
		if (typeof query.serverId === 'string' && (parts.scope !== 'server' || parts.ownerId !== query.serverId)) continue;
		if (query.serverId === null && parts.scope !== 'user') continue;
		found.add(scopeKey);
	}
	const keys = [...found].sort();
	const entries = await deps.store.getMany(keys.map(Records.entry));
	const latest = query.latest ?? 10;
	const scopes: ScopeInspection[] = [];
	for (const [index, key] of keys.entries()) {
		const parts = parseScopeKey(key)!;
		const stored = entries[index];
		// A member's own copy of a guild conversation is not the channel's live memory: the server scope is.
		if (parts.scope === 'user' && stored && stored.serverId !== DM_SERVER_ID) continue;
		const entry = stored && !isExpired(stored, deps.config, now) ? stored : null;
		const archived = await deps.archive.read(key);
		if (parts.scope === 'user' && !entry && archived.length === 0) continue;
		scopes.push({
			key,
			scope: parts.scope,
			serverId: parts.scope === 'server' ? parts.ownerId : DM_SERVER_ID,
			userId: parts.scope === 'user' ? parts.ownerId : null,
			personaId: parts.personaId,
			entry: entry && {
				messages: entry.messages,
				summary: entry.summary,
				categories: entry.categories,
				digest: entry.digest ?? [],
				backgroundSummary: entry.backgroundSummary ?? null,
				lastUpdated: entry.lastUpdated,
				expiresAt: entry.lastUpdated + entryLifetimeMs(entry, deps.config)
			},
			archive: {
				messages: archived.length,
				oldest: archived.reduce<number | null>((oldest, message) => Math.min(oldest ?? message.ts, message.ts), null),
				newest: archived.reduce<number | null>((newest, message) => Math.max(newest ?? message.ts, message.ts), null),
				latest: [...archived].sort((a, b) => a.ts - b.ts).slice(archived.length - Math.min(latest, archived.length))
			}
		});
	}
	return { channelId: query.channelId, serverId: query.serverId ?? null, scopes };
}
