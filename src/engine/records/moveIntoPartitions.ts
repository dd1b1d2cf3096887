import type { AuthorListings, Listings } from '../schemas';
import { liveScopeChannel } from './scopes';
import { Records } from './Records';
import type { RecordStore } from './RecordStore';
import type { Registry } from './Registry';
import { registration, type RegistryKind, REGISTRY_KINDS, serverNamedBy } from './registryLayout';

/**
 * Moves the ids of the sets of the layout before partitions (`registry:<kind>`, which every shard wrote) into the partitions of
 * the servers they were met in: the server an id names (a channel, an archive's scope), or for a member the servers their
 * directory or author index names. An id added to its partitions leaves the old set after; one whose servers cannot be told
 * (its directory or index is gone) stays there, and the sweep, which walks the old set too, removes it with its data. Run by
 * each sweep, so a process of the version before that still adds to the old sets is followed. Resolves with how many moved.
 */
export async function moveIntoPartitions(registry: Registry, store: RecordStore): Promise<number> {
	let moved = 0;
	for (const kind of REGISTRY_KINDS) {
		for await (const slice of registry.walk(Records.registry(kind))) {
			const servers = await serversOf(kind, slice.ids, store);
			const placed = slice.ids.filter((_, index) => servers[index]!.length > 0);
			if (placed.length === 0) continue;
			await store.addToSets(slice.ids.flatMap((id, index) => servers[index]!.flatMap((serverId) => registration(kind, serverId, [id]))));
			await registry.removeFrom([{ partition: slice.partition, ids: placed }]);
			moved += placed.length;
		}
	}
	return moved;
}

/** The servers each id of `kind` was met in, as far as the store still tells: none when it does not. */
async function serversOf(kind: RegistryKind, ids: readonly string[], store: RecordStore): Promise<string[][]> {
	if (kind === 'users') {
		const directories = await store.getMany<Listings>(ids.map(Records.userDirectory));
		return directories.map((listings) => unique(Object.values(listings ?? {}).map((listing) => listing.serverId)));
	}
	if (kind === 'authors') {
		const indexes = await store.getMany<AuthorListings>(ids.map(Records.authors));
		return indexes.map((index) => unique(Object.keys(index ?? {}).flatMap((scopeKey) => liveScopeChannel(scopeKey)?.serverId ?? [])));
	}
	return ids.map((id) => {
		const serverId = serverNamedBy(kind, id);
		return serverId ? [serverId] : [];
	});
}

function unique(values: readonly string[]): string[] {
	return [...new Set(values)];
}
