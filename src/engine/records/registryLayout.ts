import { DM_SERVER_ID } from '../schemas/primitives';
import { fnv1a } from '../format/fnv1a';
import { liveScopeChannel } from './scopes';
import { Records, type RecordSetChange, type SetKey } from './Records';

/** What the registries list: directory owners, archives' scopes, authors with an author index, channels with a forgotten list. */
export type RegistryKind = 'servers' | 'users' | 'channels' | 'archives' | 'authors' | 'forgotten' | 'purges';

export const REGISTRY_KINDS: readonly RegistryKind[] = ['servers', 'users', 'channels', 'archives', 'authors', 'forgotten', 'purges'];

/**
 * Kinds whose ids are server ids: kept by shard bucket, not by server (a partition per server would hold one id, and the
 * pending purges, read whole at start, would cost a read per server). Each is written once per server, never per turn.
 */
export const SERVER_ID_KINDS: ReadonlySet<RegistryKind> = new Set(['servers', 'purges']);

/** The kinds kept in a partition per server: every id met in a server's turns. */
export const PER_SERVER_KINDS: readonly RegistryKind[] = REGISTRY_KINDS.filter((kind) => !SERVER_ID_KINDS.has(kind));

/**
 * Shard buckets. Discord sends a guild to shard `(id >> 22) % shardCount`; the bucket is `(id >> 22) % 64`, so for any shard
 * count that divides 64 every bucket belongs to one shard, and a key named by a bucket has one writer.
 */
export const SHARD_BUCKETS = 64;

/**
 * The shard bucket of a server: Discord's shard formula over 64 shards. Direct messages go to shard 0, and so does their
 * bucket; an id that is no snowflake (a host without Discord) is hashed.
 */
export function shardBucket(serverId: string): number {
	if (serverId === DM_SERVER_ID) return 0;
	if (/^\d{1,20}$/.test(serverId)) return Number((BigInt(serverId) >> 22n) % BigInt(SHARD_BUCKETS));
	return (fnv1a(serverId) >>> 0) % SHARD_BUCKETS;
}

/**
 * Where an id of `kind` met in `serverId` is registered, so that no registry key is written by two shards: a set per server
 * (`registry:<kind>:server:<serverId>`), or for server ids a set per shard bucket (`registry:<kind>:bucket:<n>`).
 */
export function partitionKey(kind: RegistryKind, serverId: string): SetKey {
	return SERVER_ID_KINDS.has(kind) ? Records.registryOfBucket(kind, shardBucket(serverId)) : Records.registryOfServer(kind, serverId);
}

/**
 * The additions that register `ids` of `kind` met in `serverId`: its partition, and the server in its bucket's list of
 * servers with partitions, in one write (one statement or `MULTI`), so that a sweep that took the server off its list while
 * the partition looked empty, then looked again, sees the id or finds the server listed again (Registry.dropEmptyServers).
 */
export function registration(kind: RegistryKind, serverId: string, ids: readonly string[]): RecordSetChange[] {
	const changes = [{ key: partitionKey(kind, serverId), members: ids }];
	if (!SERVER_ID_KINDS.has(kind)) changes.push({ key: Records.registryServers(shardBucket(serverId)), members: [serverId] });
	return changes;
}

/** The server a live scope (an archive's, an author index's) belongs to: its server, or `DM` for a direct message's. */
export function serverOfLiveScope(scopeKey: string): string {
	return liveScopeChannel(scopeKey)?.serverId ?? DM_SERVER_ID;
}

/** The server an id of `kind` names by itself, or null for members (users, authors), who are met in many. */
export function serverNamedBy(kind: RegistryKind, id: string): string | null {
	if (SERVER_ID_KINDS.has(kind)) return id;
	if (kind === 'channels' || kind === 'forgotten') return id.split(':')[0] ?? null;
	if (kind === 'archives') return liveScopeChannel(id)?.serverId ?? null;
	return null;
}
