import type { MemoryConfig } from './config';
import { entryLifetimeMs } from './entry';
import { DM_SERVER_ID, Keys } from './keys';
import type { MemoryStore } from './store';
import type { ShortTermEntry } from './types';

/** What the directory knows of one short-term entry without reading it. */
export interface ScopeListing {
	key: string;
	scope: 'user' | 'server';
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

	/**
	 * Records that each key now holds its entry, and forgets listings that have expired. User-scope
	 * entries are listed under their user and, in a guild, under their server too, so that a
	 * moderator's channel wipe finds them.
	 */
	public async track(entries: readonly { key: string; entry: ShortTermEntry }[], now: number): Promise<void> {
		const byDirectory = new Map<string, ScopeListing[]>();
		for (const { key, entry } of entries) {
			const listing: ScopeListing = {
				key,
				scope: entry.scope,
				serverId: entry.serverId,
				channelId: entry.channelId,
				parentChannelId: entry.parentChannelId,
				personaId: entry.personaId,
				lineageId: entry.lineageId,
				lastUpdated: entry.lastUpdated,
				expiresAt: entry.lastUpdated + entryLifetimeMs(entry, this.config())
			};
			const directories = entry.scope === 'server' ? [Keys.serverIndex(entry.serverId)] : [Keys.userIndex(entry.userId!)];
			if (entry.scope === 'user' && entry.serverId !== DM_SERVER_ID) directories.push(Keys.serverIndex(entry.serverId));
			for (const directory of directories) byDirectory.set(directory, [...(byDirectory.get(directory) ?? []), listing]);
		}
		await Promise.all(
			[...byDirectory].map(([directoryKey, listings]) =>
				this.store.update<Listings>(directoryKey, (current) => {
					const next: Listings = {};
					for (const [other, value] of Object.entries(current ?? {})) if (value.expiresAt > now) next[other] = value;
					for (const listing of listings) next[listing.key] = listing;
					const longest = Math.max(...Object.values(next).map((value) => value.expiresAt));
					return { value: next, ttlMs: Math.max(1, longest - now) };
				})
			)
		);
	}

	/** Removes listings, e.g. after their entries were deleted. */
	public async forget(directoryKey: string, keys: readonly string[]): Promise<void> {
		await this.store.update<Listings>(directoryKey, (current) => {
			if (!current) return null;
			const next = { ...current };
			for (const key of keys) delete next[key];
			return { value: next };
		});
	}

	/** Live listings of one server: its server-scope entries and its members' user-scope entries. */
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
