import type { Listings, ShortTermEntry } from '../schemas';
import { type RecordKey, Records } from '../records/Records';
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
	await parts.store.setMany(kept.map((replaced) => ({ key: Records.entry(replaced.key), value: replaced.entry, ttlMs: ttl(replaced) })));
	await parts.store.delete(gone.map(({ key }) => Records.entry(key)));
	await parts.directory.track(kept, now);
	await parts.directory.forgetMany(listingsOf(gone));
}

/** The directories that list each entry (directory key → entry keys): the server's, or the member's and their channel's. */
export function listingsOf(entries: readonly { key: string; entry: ShortTermEntry }[]): Map<RecordKey<Listings>, string[]> {
	const byDirectory = new Map<RecordKey<Listings>, string[]>();
	const list = (directory: RecordKey<Listings>, key: string) => byDirectory.set(directory, [...(byDirectory.get(directory) ?? []), key]);
	for (const { key, entry } of entries) {
		if (entry.scope === 'server') list(Records.serverDirectory(entry.serverId), key);
		if (entry.scope === 'user' && entry.serverId !== DM_SERVER_ID) list(Records.channelDirectory(entry.serverId, entry.channelId), key);
		if (entry.scope === 'user' && entry.userId) list(Records.userDirectory(entry.userId), key);
	}
	return byDirectory;
}
