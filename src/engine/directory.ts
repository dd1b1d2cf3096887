import type { MemoryConfig } from './config';
import { entryLifetimeMs } from './entry';
import { Keys } from './keys';
import type { MemoryStore } from './store';
import type { ShortTermEntry } from './types';

/** What the directory knows of one short-term entry without reading it. */
export interface ScopeListing {
	key: string;
	serverId: string;
	channelId: string;
	parentChannelId: string | null;
	personaId: string | null;
	lineageId: string | null;
	lastUpdated: number;
	expiresAt: number;
}

export type Listings = Record<string, ScopeListing>;

/**
 * Lists the short-term entries of each server and of each user, so that cross-channel memory
 * and erasure find them without scanning the store.
 */
export class ScopeDirectory {
	public constructor(
		private readonly store: MemoryStore,
		private readonly config: () => MemoryConfig
	) {}

	/** Records that `key` now holds `entry`, and forgets listings that have expired. */
	public async track(key: string, entry: ShortTermEntry, now: number): Promise<void> {
		const directoryKey = entry.scope === 'server' ? Keys.serverIndex(entry.serverId) : Keys.userIndex(entry.userId!);
		const listing: ScopeListing = {
			key,
			serverId: entry.serverId,
			channelId: entry.channelId,
			parentChannelId: entry.parentChannelId,
			personaId: entry.personaId,
			lineageId: entry.lineageId,
			lastUpdated: entry.lastUpdated,
			expiresAt: entry.lastUpdated + entryLifetimeMs(entry, this.config())
		};
		await this.store.update<Listings>(directoryKey, (current) => {
			const next: Listings = {};
			for (const [other, value] of Object.entries(current ?? {})) if (value.expiresAt > now) next[other] = value;
			next[key] = listing;
			const longest = Math.max(...Object.values(next).map((value) => value.expiresAt));
			return { value: next, ttlMs: Math.max(1, longest - now) };
		});
	}

	/** Live listings of one server's server-scope entries. */
	public async server(serverId: string, now: number): Promise<ScopeListing[]> {
		return live(await this.store.get<Listings>(Keys.serverIndex(serverId)), now);
	}

	/** Live listings of one user's user-scope entries, in servers and DMs. */
	public async user(userId: string, now: number): Promise<ScopeListing[]> {
		return live(await this.store.get<Listings>(Keys.userIndex(userId)), now);
	}

}

/** Listings still being served at `now`. */
export function live(value: Listings | undefined, now: number): ScopeListing[] {
	return Object.values(value ?? {}).filter((listing) => listing.expiresAt > now);
}
