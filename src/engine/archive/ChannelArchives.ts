import { LRUCache } from 'lru-cache';
import type { ChannelArchiveListings } from '../schemas';
import { Records } from '../records/Records';
import { liveScopeChannel } from '../records/scopes';
import type { RecordStore } from '../records/RecordStore';

/**
 * How often this process lists an archive under its channel again while it appends to it: each write
 * keeps the list this much past the archive's own lifetime, so the list outlives every archive it names.
 */
export const RELIST_MS = 86_400_000;

/**
 * Which live scopes of a channel have an archive (`archives:<serverId>:<channelId>`), one per persona,
 * so a message deleted on Discord is found in every archive of its channel by the channel alone, long after
 * the short-term entries and their listings are gone. A channel's list is written once a day per process at
 * most, whatever the traffic.
 */
export class ChannelArchives {
	private readonly listed = new LRUCache<string, number>({ max: 25_000 });

	public constructor(
		private readonly store: RecordStore,
		/** How long an archive key lives after its last write. */
		private readonly archiveTtlMs: number
	) {}

	/** Lists a live scope's archive under its channel: call it before the archive's first write, and at each append. */
	public async note(scopeKey: string, now: number): Promise<void> {
		const channel = liveScopeChannel(scopeKey);
		const last = this.listed.get(scopeKey);
		if (!channel || (last !== undefined && now - last < RELIST_MS)) return;
		await this.store.update<ChannelArchiveListings>(Records.channelArchives(channel.serverId, channel.channelId), (current) => ({
			value: { ...current, [scopeKey]: now },
			ttlMs: this.archiveTtlMs + RELIST_MS
		}));
		this.listed.set(scopeKey, now);
	}

	/** The live scopes of a channel that have (or had, within retention) an archive. */
	public async of(serverId: string, channelId: string): Promise<string[]> {
		return this.ofChannels(serverId, [channelId]);
	}

	/** {@link of} for several channels of one server, read together. */
	public async ofChannels(serverId: string, channelIds: readonly string[]): Promise<string[]> {
		const lists = await this.store.getMany<ChannelArchiveListings>(channelIds.map((channelId) => Records.channelArchives(serverId, channelId)));
		return lists.flatMap((list) => Object.keys(list ?? {}));
	}

	/** Takes an archive off its channel's list once the sweep found nothing left of it; a list left empty goes. */
	public async unlist(scopeKey: string): Promise<void> {
		const channel = liveScopeChannel(scopeKey);
		if (!channel) return;
		this.listed.delete(scopeKey);
		await this.store.update<ChannelArchiveListings>(Records.channelArchives(channel.serverId, channel.channelId), (current) => {
			if (!current || !(scopeKey in current)) return null;
			const { [scopeKey]: _gone, ...rest } = current;
			return Object.keys(rest).length === 0 ? 'delete' : { value: rest, ttlMs: this.archiveTtlMs + RELIST_MS };
		});
	}

	/** Forgets channels' lists, once their archives are gone (a moderator's wipe, a server's purge). */
	public async forget(serverId: string, channelIds: readonly string[]): Promise<void> {
		const channels = new Set(channelIds);
		// The next append there lists its archive again.
		for (const key of [...this.listed.keys()]) {
			const channel = liveScopeChannel(key);
			if (channel?.serverId === serverId && channels.has(channel.channelId)) this.listed.delete(key);
		}
		await this.store.delete(channelIds.map((channelId) => Records.channelArchives(serverId, channelId)));
	}
}
