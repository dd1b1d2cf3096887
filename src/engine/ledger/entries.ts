import type { MemoryConfig } from '../config';
import { MemoryError } from '../errors';
import { DM_SERVER_ID, type ShortTermEntry, type StoredMessage } from '../schemas';

const HOUR = 3_600_000;

/** How long an entry lives after its last update: longer once it holds a summary (from the tool or a digest). */
export function entryLifetimeMs(entry: Pick<ShortTermEntry, 'summary' | 'categories' | 'digest'>, config: MemoryConfig): number {
	const hasSummary =
		Boolean(entry.summary) || Boolean(entry.categories && Object.keys(entry.categories).length > 0) || (entry.digest?.length ?? 0) > 0;
	return (hasSummary ? config.summaryTtlHours : config.ttlHours) * HOUR;
}

/** An entry is served until its lifetime has passed since `lastUpdated`; then all of it goes. */
export function isExpired(entry: ShortTermEntry, config: MemoryConfig, now: number): boolean {
	return now >= entry.lastUpdated + entryLifetimeMs(entry, config);
}

/** Chronological order; message ids break ties so that the order is the same everywhere. */
export function byTime(a: StoredMessage, b: StoredMessage): number {
	return chronological(a.ts, a.id, b.ts, b.id);
}

/** {@link byTime} of two messages given by their times and ids. */
export function chronological(aTs: number, aId: string, bTs: number, bId: string): number {
	// Compared, not subtracted: a difference of two times is a new heap number in each comparison.
	return aTs < bTs ? -1 : aTs > bTs ? 1 : aId < bId ? -1 : aId > bId ? 1 : 0;
}

/**
 * Merges `incoming` into `stored` by message id and keeps the newest `max`; the others, oldest first,
 * are what left the window (the digest folds them). A message seen again keeps what was stored (time,
 * persona, speaker) and takes the new text, so an edit is followed.
 */
export function mergeWindow(
	stored: readonly StoredMessage[],
	incoming: readonly StoredMessage[],
	max: number
): { kept: StoredMessage[]; evicted: StoredMessage[] } {
	const merged = new Map<string, StoredMessage>();
	for (const message of stored) merged.set(message.id, message);
	for (const message of incoming) {
		const known = merged.get(message.id);
		merged.set(message.id, known ? { ...known, text: message.text } : message);
	}
	const all = [...merged.values()].sort(byTime);
	const kept = all.slice(-max);
	return { kept, evicted: all.slice(0, all.length - kept.length) };
}

/** Where a short-term entry belongs: its server (`DM` in DMs), channel and, for a thread, parent channel. */
export type EntryPlace = Pick<ShortTermEntry, 'serverId' | 'channelId' | 'parentChannelId'>;

/**
 * Where a write to an entry puts it, as its first write stored it. A thread keeps the parent it was first stored
 * with, so a later write that omits or changes it cannot make a private thread's memory public. A member's scope of
 * a channel is keyed by the member and the channel alone, so a channel keeps the server it was first stored with: a
 * write naming the same channel id under another server, or as a DM, is refused (`INVALID_INPUT`) rather than mixing
 * two channels' memories under one key.
 */
export function entryPlace(
	current: EntryPlace | undefined,
	where: { serverId: string | null; channelId: string; parentChannelId?: string | null | undefined }
): EntryPlace {
	const serverId = where.serverId ?? DM_SERVER_ID;
	if (current && current.serverId !== serverId)
		throw new MemoryError(
			'INVALID_INPUT',
			`Channel ${where.channelId} is stored as a channel of ${describe(current.serverId)}, not of ${describe(serverId)}: ` +
				'a channel id names one channel.'
		);
	return { serverId, channelId: where.channelId, parentChannelId: current?.parentChannelId ?? where.parentChannelId ?? null };
}

/** Whether an entry read for a request is that request's own: of the same server (or a DM, for a DM). */
export function isEntryOf(entry: EntryPlace, where: { serverId: string | null }): boolean {
	return entry.serverId === (where.serverId ?? DM_SERVER_ID);
}

function describe(serverId: string): string {
	return serverId === DM_SERVER_ID ? 'a DM' : `server ${serverId}`;
}
