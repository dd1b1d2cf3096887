import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryEngine } from '../../src';
import { OLD_REGISTRY_BUCKETS, Registry, REGISTRY_KINDS, type RegistryKind } from '../../src/engine/records/Registry';
import { Records, type SetKey } from '../../src/engine/records/Records';
import { PER_SERVER_KINDS, partitionKey, SERVER_ID_KINDS, SHARD_BUCKETS, shardBucket } from '../../src/engine/records/registryLayout';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { checkStore, decodeRows, StoreInspection, storeRows } from '../support/store-inspection';
import { CHANNEL, DM_CHANNEL, GUILD, MAYA, OTHER_CHANNEL, OTHER_GUILD, THEO, turn } from '../support/turns';

const DAY = 86_400_000;
const ids = (count: number, from = 0) => Array.from({ length: count }, (_, index) => String(800000000000000000n + BigInt(from + index)));
/** A server id Discord sends to `shard` of `shards` (its bits above 22 are its shard's number, modulo the count). */
const serverOnShard = (shard: number, shards: number, index: number) => String((1_300_000_000_000n + BigInt(index * shards + shard)) << 22n);

afterEach(() => {
	vi.restoreAllMocks();
});

/** Every set a registry uses, by its key: the ones before partitions, every shard bucket's, every listed server's. */
async function registrySets(store: MemoryStore): Promise<Map<SetKey, string[]>> {
	const keys: SetKey[] = REGISTRY_KINDS.map((kind) => Records.registry(kind));
	for (let bucket = 0; bucket < SHARD_BUCKETS; bucket++) {
		keys.push(Records.registryServers(bucket), ...[...SERVER_ID_KINDS].map((kind) => Records.registryOfBucket(kind, bucket)));
		const [servers] = await store.setMembers([Records.registryServers(bucket)]);
		for (const serverId of servers!) keys.push(...PER_SERVER_KINDS.map((kind) => partitionKey(kind, serverId)));
	}
	const members = await store.setMembers(keys);
	return new Map(keys.flatMap((key, index) => (members[index]!.length > 0 ? [[key, members[index]!] as const] : [])));
}

/** Rewrites the registries as the layout before partitions kept them: one set per kind (`registry:<kind>`). */
async function toLayoutBeforePartitions(store: MemoryStore): Promise<void> {
	const registry = new Registry(store);
	const byKind = new Map<RegistryKind, string[]>();
	for (const kind of REGISTRY_KINDS) byKind.set(kind, [...new Set(await registry.every(kind))]);
	await store.deleteSets([...(await registrySets(store)).keys()]);
	await store.addToSets([...byKind].map(([kind, members]) => ({ key: Records.registry(kind), members })));
}

describe.each(backends)('the registries on $name', (backend) => {
	it('GIVEN a store of 64 buckets per kind WHEN the engine opens it THEN each id is registered, and the buckets are gone', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		const { storeUrl, namespace, cleanup } = backend.url();
		const inspect = await StoreInspection.open({ storeUrl, namespace });
		const users = ids(700);
		const archives = ids(300, 5000).map((id) => `shortterm:server:${id}:1:sol`);
		try {
			for (const [kind, listed] of [
				['users', users],
				['archives', archives]
			] as const) {
				const buckets = new Map<number, Record<string, 1>>();
				for (const id of listed) {
					const bucket = Number(inspect.registryBucketOf(kind, id).key.split(':').pop());
					buckets.set(bucket, { ...buckets.get(bucket), [id]: 1 });
				}
				for (const [bucket, value] of buckets) await inspect.registryBucket(kind, bucket).write(value);
			}
			const engine = await MemoryEngine.open({ env: {}, config: { storeUrl, storeNamespace: namespace, ...backend.config } });
			await engine.close();
			expect(await inspect.registered('users')).toEqual([...users].sort());
			expect(await inspect.registered('archives')).toEqual([...archives].sort());
			for (let bucket = 0; bucket < OLD_REGISTRY_BUCKETS; bucket++) {
				expect(await inspect.registryBucket('users', bucket).read()).toBeUndefined();
				expect(await inspect.registryBucket('archives', bucket).read()).toBeUndefined();
			}
		} finally {
			await inspect.clear();
			await inspect.close();
			cleanup();
		}
	});

	describe('GIVEN an engine', () => {
		const clock = new TestClock();
		// A purge waits, so that the registry of pending purges holds one.
		const t = freshEngineEachTest(backend, clock, { serverPurgeGraceHours: 24 });
		const registeredIds = async (kind: RegistryKind) => (await t.inspect.registered(kind)).sort();

		it('WHEN a member is noted again THEN nothing more is written, and ids added by two registries at once are all kept', async () => {
			const [mine, theirs] = [new Registry(t.inspect.store!), new Registry(t.inspect.store!)];
			const adds = vi.spyOn(t.inspect.store!, 'addToSets');
			const everyId = ids(400);
			await Promise.all(everyId.map((id, index) => (index % 2 === 0 ? mine : theirs).note('users', GUILD, id)));
			await Promise.all(everyId.map((id, index) => (index % 2 === 0 ? mine : theirs).note('users', GUILD, id)));
			expect(adds).toHaveBeenCalledTimes(400);
			expect(await t.inspect.registered('users')).toEqual(everyId);
		});

		it('WHEN two shards register the ids met in their own servers THEN no set is written by both', async () => {
			const other = await MemoryStore.open({ storeUrl: t.storeUrl, namespace: t.namespace, sqliteDriver: backend.config.sqliteDriver });
			try {
				const stores = [t.inspect.store!, other];
				const written = stores.map((store) => {
					const keys = new Set<string>();
					const add = store.addToSets.bind(store);
					vi.spyOn(store, 'addToSets').mockImplementation((changes) => {
						for (const { key } of changes) keys.add(key);
						return add(changes);
					});
					return keys;
				});
				const registries = stores.map((store) => new Registry(store));
				for (const [shard, registry] of registries.entries())
					for (let server = 0; server < 8; server++) {
						const serverId = serverOnShard(shard, 2, server);
						for (const kind of REGISTRY_KINDS)
							await registry.note(kind, serverId, kind === 'servers' || kind === 'purges' ? serverId : MAYA.id);
					}
				expect(written[0]!.size).toBeGreaterThan(0);
				expect([...written[0]!].filter((key) => written[1]!.has(key))).toEqual([]);
			} finally {
				await other.close();
			}
		});

		it('WHEN a member talks in two servers and a DM THEN they are listed in each, and removed from each once their data is gone', async () => {
			await t.engine.recordTurn(turn({ who: MAYA, text: 'here' }));
			await t.engine.recordTurn(turn({ who: MAYA, serverId: OTHER_GUILD, channelId: OTHER_CHANNEL, text: 'and there' }));
			await t.engine.recordTurn(turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'and privately' }));
			const registry = new Registry(t.inspect.store!);
			for (const serverId of [GUILD, OTHER_GUILD, 'DM']) {
				expect(await registry.ofServer('users', serverId)).toEqual([MAYA.id]);
				expect(await registry.ofServer('authors', serverId)).toEqual([MAYA.id]);
			}
			clock.advance(400 * DAY);
			await t.engine.sweep();
			expect([...(await registrySets(t.inspect.store!)).keys()]).toEqual([]);
		});

		it('GIVEN registries of the layout before partitions WHEN the sweep runs THEN each id moves into its server, and none is lost', async () => {
			await t.engine.recordTurn(turn({ who: MAYA, text: 'here' }));
			await t.engine.recordTurn(turn({ who: THEO, serverId: OTHER_GUILD, channelId: OTHER_CHANNEL, text: 'there' }));
			await t.engine.recordTurn(turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'privately' }));
			await t.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: ['900000000000000001'], kind: 'deleted' });
			await t.engine.serverRemoved(OTHER_GUILD);
			const registered = new Map(await Promise.all(REGISTRY_KINDS.map(async (kind) => [kind, await registeredIds(kind)] as const)));
			await toLayoutBeforePartitions(t.inspect.store!);
			const before = await registrySets(t.inspect.store!);
			expect([...before.keys()].sort()).toEqual([...new Set(REGISTRY_KINDS.map((kind) => Records.registry(kind)))].sort());
			const problems = async () => checkStore(decodeRows(await storeRows(t), clock.now()));
			expect(await problems()).toEqual([]);

			await t.engine.sweep();

			const after = await registrySets(t.inspect.store!);
			expect([...after.keys()].filter((key) => REGISTRY_KINDS.some((kind) => key === Records.registry(kind)))).toEqual([]);
			for (const kind of REGISTRY_KINDS) expect(await registeredIds(kind)).toEqual(registered.get(kind));
			const registry = new Registry(t.inspect.store!);
			expect(await registry.ofServer('users', GUILD)).toEqual([MAYA.id]);
			expect(await registry.ofServer('users', 'DM')).toEqual([MAYA.id]);
			expect(await registry.ofServer('users', OTHER_GUILD)).toEqual([THEO.id]);
			expect(await registry.ofServer('channels', GUILD)).toEqual([`${GUILD}:${CHANNEL}`]);
			expect(await registry.ofServer('forgotten', GUILD)).toEqual([`${GUILD}:${CHANNEL}`]);
			expect(await registry.ofServer('purges', OTHER_GUILD)).toEqual([OTHER_GUILD]);
			expect(after.get(Records.registryServers(shardBucket(GUILD)))).toContain(GUILD);
			expect(await problems()).toEqual([]);
		});

		it('WHEN the sweep walks 2,500 ids in the old set and in a server THEN it reads slices of 1,000 at most, and drops stale ids', async () => {
			await t.engine.recordTurn(turn({ who: MAYA, text: 'still here' }));
			const registry = new Registry(t.inspect.store!);
			for (let at = 0; at < 2500; at += 500) {
				await t.inspect.store!.addToSets([{ key: Records.registry('users'), members: ids(500, at) }]);
				await t.inspect.store!.addToSets([{ key: partitionKey('users', GUILD), members: ids(500, 10_000 + at) }]);
			}
			const pages = vi.spyOn(Registry.prototype, 'page');

			await t.engine.sweep();

			const userPages = pages.mock.calls.filter(([partition]) => partition.startsWith('registry:users'));
			expect(userPages.length).toBeGreaterThanOrEqual(6);
			expect(pages.mock.calls.every(([, , limit]) => limit === undefined || limit <= 1000)).toBe(true);
			expect(await registry.every('users')).toEqual([MAYA.id]);
		});
	});
});
