import { LRUCache } from 'lru-cache';
import type { MemoryConfig } from '../config';
import { entryLifetimeMs } from './entries';
import { type RecordKey, Records } from '../records/Records';
import { DM_SERVER_ID } from '../schemas/primitives';
import { keptPastExpiryMs } from '../records/grace';
import type { Registry, RegistrySlice } from '../records/Registry';
import type { RecordStore, UpdateResult } from '../records/RecordStore';
import type { Listings, ScopeListing, ShortTermEntry } from '../schemas';
import { fnv1a } from '../format/fnv1a';

/**
 * How long the listing of a steady conversation may go unwritten: capture writes it this much past the
 * entry's expiry, and again only once that no longer covers the entry, or when the entry was not in the
 * store before the turn (new, expired, or erased meanwhile by another process). Times in listings are then
 * up to this late: the order of other channels, newest first, is this coarse.
 */
export const LISTING_SLACK_MS = 10 * 60_000;

/**
 * Whose directory, as the registries name them: a server's (`index:server:<id>`: its server-scope
 * entries), a user's (`index:user:<id>`: their user-scope entries) or a guild channel's
 * (`index:channel:<serverId>:<channelId>`, id `<serverId>:<channelId>`: its members' user-scope entries).
 */
export type DirectoryOwner = ['servers' | 'users' | 'channels', string];

/** The key of an owner's directory. */
export function directoryKey([kind, id]: DirectoryOwner): RecordKey<Listings> {
	if (kind === 'servers') return Records.serverDirectory(id);
	if (kind === 'users') return Records.userDirectory(id);
	const [serverId, channelId] = id.split(':');
	return Records.channelDirectory(serverId!, channelId!);
}

/**
 * Lists the short-term entries of each server and of each user, so that cross-channel memory
 * and erasure find them without scanning the store.
 */
export class ScopeDirectory {
	/**
	 * Listings this process wrote, by entry key, while they still cover the entry (see {@link track}): when they
	 * expire in each kind of directory and a hash of what they name, not the listings, whose strings would stay alive.
	 */
	private readonly written = new LRUCache<string, WrittenListing>({ max: 25_000 });

	public constructor(
		private readonly store: RecordStore,
		private readonly config: MemoryConfig,
		private readonly registry?: Registry
	) {}

	/**
	 * Records that each key now holds its entry, and forgets listings long expired (the sweep deletes
	 * their entries first). User-scope entries are listed under their user and, in a guild, under
	 * their channel too, so that a moderator's channel wipe finds them. (Not under their server: a
	 * server's directory would then grow with members times channels, and be rewritten at every
	 * member's first turn in a channel.)
	 */
	public async track(
		entries: readonly { key: string; entry: ShortTermEntry }[],
		now: number,
		options: { steady?: ReadonlySet<string> } = {}
	): Promise<void> {
		const grace = keptPastExpiryMs(this.config);
		const byDirectory = new Map<RecordKey<Listings>, ScopeListing[]>();
		const owners = new Map<RecordKey<Listings>, DirectoryOwner>();
		// Each owner in the partition of the server its entry is in: a member met in two servers is listed in both.
		const registrations = new Map<string, Registration>();
		for (const { key, entry } of entries) {
			const steady = options.steady?.has(key) ?? false;
			const lifetime = entryLifetimeMs(entry, this.config);
			const listing: ScopeListing = {
				key,
				scope: entry.scope,
				serverId: entry.serverId,
				channelId: entry.channelId,
				parentChannelId: entry.parentChannelId,
				personaId: entry.personaId,
				lineageId: entry.lineageId,
				lastUpdated: entry.lastUpdated,
				expiresAt: entry.lastUpdated + lifetime + (steady ? Math.min(LISTING_SLACK_MS, lifetime / 10) : 0)
			};
			const own: DirectoryOwner[] = entry.scope === 'server' ? [['servers', entry.serverId]] : [['users', entry.userId!]];
			if (entry.scope === 'user' && entry.serverId !== DM_SERVER_ID) own.push(['channels', `${entry.serverId}:${entry.channelId}`]);
			const directories = own.map((owner) => {
				const directory = directoryKey(owner);
				owners.set(directory, owner);
				registrations.set(`${owner.join(':')}\u0000${entry.serverId}`, [owner[0], entry.serverId, owner[1]]);
				return directory;
			});
			const known = this.written.get(key);
			const sameScope = known?.scope === scopeHash(listing);
			directories.forEach((directory, at) => {
				// A turn in a steady conversation leaves its listing as it is while what this process wrote still covers the entry.
				if (steady && sameScope && known![own[at]![0]] >= entry.lastUpdated + lifetime) return;
				byDirectory.set(directory, [...(byDirectory.get(directory) ?? []), listing]);
			});
		}
		if (byDirectory.size === 0) return;
		const merge = (directoryKey: RecordKey<Listings>, current: Listings | undefined): UpdateResult<Listings> => {
			const next: Listings = {};
			// An expired listing stays a while: it is how the sweep finds the entry to delete.
			for (const [other, value] of Object.entries(current ?? {})) if (value.expiresAt + grace > now) next[other] = value;
			// A listing read back late never replaces a newer one.
			for (const listing of byDirectory.get(directoryKey)!)
				if ((next[listing.key]?.lastUpdated ?? -Infinity) <= listing.lastUpdated) next[listing.key] = listing;
			const longest = Math.max(...Object.values(next).map((value) => value.expiresAt));
			return { value: next, ttlMs: Math.max(1, longest + grace - now) };
		};
		const directories = [...byDirectory.keys()];
		// Before the write too (free once the id is known), so a process killed after it leaves no directory the sweep never visits.
		await this.register(registrations.values());
		// Every directory in one round trip.
		const stored = await this.store.updateMany<Listings>(directories, merge);
		directories.forEach((directoryKey, index) => {
			const [kind] = owners.get(directoryKey)!;
			const listings = byDirectory.get(directoryKey)!;
			// What the directory now holds, which may be a newer listing than ours (a concurrent turn's, without the
			// slack of a steady one): merges run one at a time in store order, and so do these notes.
			for (const { key } of listings) {
				const kept = stored[index]?.[key];
				if (kept) this.noteWritten(kind, kept);
				else this.written.delete(key);
			}
			// A user's directory is written by every shard process the user talks through: read back until it holds ours.
			if (kind === 'users')
				void this.store.confirm<Listings>(
					directoryKey,
					(held) => listings.every((listing) => (held?.[listing.key]?.lastUpdated ?? -1) >= listing.lastUpdated),
					() => this.store.update<Listings>(directoryKey, (current) => merge(directoryKey, current))
				);
		});
		// After the write: a sweep that just deleted the directory has dropped the id from its known-set.
		await this.register(registrations.values());
	}

	/** Removes listings, e.g. after their entries were deleted. */
	public async forget(directoryKey: RecordKey<Listings>, keys: readonly string[]): Promise<void> {
		await this.forgetMany(new Map([[directoryKey, keys]]));
	}

	/** Removes listings from several directories (directory key → entry keys), in one round trip. */
	public async forgetMany(byDirectory: ReadonlyMap<RecordKey<Listings>, readonly string[]>): Promise<void> {
		// From every directory: the next turn of such an entry writes its listings again.
		for (const keys of byDirectory.values()) for (const key of keys) this.written.delete(key);
		// A listing read back after this must not come back.
		await Promise.all([...byDirectory.keys()].map((directoryKey) => this.store.settled(directoryKey)));
		await this.store.updateMany<Listings>([...byDirectory.keys()], (directoryKey, current) => {
			if (!current) return null;
			const next = { ...current };
			for (const key of byDirectory.get(directoryKey)!) delete next[key];
			return { value: next };
		});
	}

	/**
	 * The sweep's half of expiry: removes the listings of `deleted` entries that have expired, and the
	 * directory (and its registry id, from `registeredIn`, the set the sweep found it in) when nothing is left.
	 * Returns how many listings went.
	 */
	public async expire(
		owner: DirectoryOwner,
		registeredIn: RegistrySlice['partition'],
		deleted: ReadonlySet<string>,
		now: number
	): Promise<{ listings: number; directoryDeleted: boolean }> {
		const [, id] = owner;
		const key = directoryKey(owner);
		for (const deletedKey of deleted) this.written.delete(deletedKey);
		await this.store.settled(key);
		// By hand rather than through update(): the registry must change while the directory's lock is held.
		return this.store.locked([key], async () => {
			const current = await this.store.get<Listings>(key);
			const next: Listings = {};
			for (const [listed, listing] of Object.entries(current ?? {}))
				if (!(deleted.has(listed) && listing.expiresAt <= now)) next[listed] = listing;
			const listings = Object.keys(current ?? {}).length - Object.keys(next).length;
			if (Object.keys(next).length > 0) {
				if (listings > 0) {
					const longest = Math.max(...Object.values(next).map((value) => value.expiresAt));
					await this.store.set(key, next, Math.max(1, longest + keptPastExpiryMs(this.config) - now));
				}
				return { listings, directoryDeleted: false };
			}
			if (current) await this.store.delete([key]);
			await this.registry?.removeFrom([{ partition: registeredIn, ids: [id] }]);
			return { listings, directoryDeleted: current !== undefined };
		});
	}

	/** Live listings of one server: its server-scope entries. */
	public async server(serverId: string, now: number): Promise<ScopeListing[]> {
		return live(await this.store.get(Records.serverDirectory(serverId)), now);
	}

	/** Live listings of one user's user-scope entries, in servers and DMs. */
	public async user(userId: string, now: number): Promise<ScopeListing[]> {
		return live(await this.store.get(Records.userDirectory(userId)), now);
	}

	private async register(registrations: Iterable<Registration>): Promise<void> {
		await Promise.all([...registrations].map((registration) => this.registry?.note(...registration)));
	}

	private noteWritten(kind: DirectoryOwner[0], listing: ScopeListing): void {
		const scope = scopeHash(listing);
		const known = this.written.get(listing.key);
		const written = known?.scope === scope ? known : { scope, servers: 0, users: 0, channels: 0 };
		written[kind] = listing.expiresAt;
		this.written.set(listing.key, written);
	}
}

/** A directory's owner as the registry lists it: its kind, the server its entry is in, its id. */
type Registration = [kind: DirectoryOwner[0], serverId: string, id: string];

/** When the listings this process wrote of one entry expire, in each kind of directory (0: none written), and {@link scopeHash} of them. */
interface WrittenListing {
	scope: number;
	servers: number;
	users: number;
	channels: number;
}

/**
 * A 32-bit hash (FNV-1a) of what a listing names besides its times: a listing whose scope, thread parent or
 * lineage changed is written again (a collision would leave the old one for {@link LISTING_SLACK_MS} at most).
 */
function scopeHash(listing: ScopeListing): number {
	return fnv1a(
		`${listing.scope}\u0000${listing.serverId}\u0000${listing.channelId}\u0000` +
			`${listing.parentChannelId}\u0000${listing.personaId}\u0000${listing.lineageId}`
	);
}

/** Listings still being served at `now`. */
export function live(value: Listings | undefined, now: number): ScopeListing[] {
	return Object.values(value ?? {}).filter((listing) => listing.expiresAt > now);
}
