import type { ShortTermEntry } from '../schemas';
import { Keys } from '../store/keys';
import { DM_SERVER_ID } from '../schemas/primitives';
import { entryLifetimeMs } from './entries';
import type { LedgerParts } from './LedgerParts';
import { holdsAnything } from './stripEntry';

/**
 * Stores what is left of an entry after some of its messages went (see {@link replaceEntries}). Callers hold its lock.
 */
export async function replaceEntry(parts: LedgerParts, key: string, next: ShortTermEntry, now: number): Promise<void> {
	await replaceEntries(parts, [{ key, entry: next }], now);
}

/**
 * Stores what is left of entries after some of their messages went, all in a few round trips: an entry left with
 * nothing, or past its lifetime without what kept it alive, goes with its listings; the others are written with their
 * listings' new lifetimes. Callers hold the entries' locks.
 */
export async function replaceEntries(parts: LedgerParts, entries: readonly { key: string; entry: ShortTermEntry }[], now: number): Promise<void> {
	const ttl = ({ entry }: { entry: ShortTermEntry }) => entry.lastUpdated + entryLifetimeMs(entry, parts.config) - now;
	const kept = entries.filter((replaced) => ttl(replaced) > 0 && holdsAnything(replaced.entry));
	const gone = entries.filter((replaced) => !kept.includes(replaced));
	await parts.store.setMany(kept.map((replaced) => ({ key: replaced.key, value: replaced.entry, ttlMs: ttl(replaced) })));
	await parts.store.delete(gone.map(({ key }) => key));
	await parts.directory.track(kept, now);
	await parts.directory.forgetMany(listingsOf(gone));
}

/** The directories that list each entry (directory key → entry keys): the server's, or the member's and their channel's. */
export function listingsOf(entries: readonly { key: string; entry: ShortTermEntry }[]): Map<string, string[]> {
	const byDirectory = new Map<string, string[]>();
	const list = (directory: string, key: string) => byDirectory.set(directory, [...(byDirectory.get(directory) ?? []), key]);
	for (const { key, entry } of entries) {
		if (entry.scope === 'server') list(Keys.serverIndex(entry.serverId), key);
		if (entry.scope === 'user' && entry.serverId !== DM_SERVER_ID) list(Keys.channelIndex(entry.serverId, entry.channelId), key);
		if (entry.scope === 'user' && entry.userId) list(Keys.userIndex(entry.userId), key);
	}
	return byDirectory;
}
