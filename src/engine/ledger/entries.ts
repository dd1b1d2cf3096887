import type { MemoryConfig } from '../config';
import type { ShortTermEntry, StoredMessage } from '../schemas';

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
