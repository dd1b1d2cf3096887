import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { backends } from '../support/backends';

/**
 * Shard processes write the same shared keys (registry buckets, a member's indexes). Two stores opened on the same
 * data stand for two processes here: each has its own in-process lock, so only the backend's compare-and-set keeps
 * one's update from writing over the other's.
 */
describe.each(backends)('updates of one key from two processes at once, on $name', (backend) => {
	it('WHEN each adds 150 ids to the same registry bucket at once THEN none is lost, and removals lose none either', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		const { storeUrl, namespace, cleanup } = backend.url();
		const open = () => MemoryStore.open({ storeUrl, namespace, sqliteDriver: backend.config.sqliteDriver });
		const stores = [await open(), await open()];
		const bucket = 'registry:users:7';
		const ids = (side: number) => Array.from({ length: 150 }, (_, index) => `${side}${String(index).padStart(17, '0')}`);
		try {
			await Promise.all(
				stores.map((store, side) =>
					Promise.all(ids(side).map((id) => store.update<Record<string, 1>>(bucket, (current) => ({ value: { ...current, [id]: 1 } }))))
				)
			);
			expect(Object.keys((await stores[0]!.get<Record<string, 1>>(bucket))!).sort()).toEqual([...ids(0), ...ids(1)].sort());
			// One side removes its ids while the other adds more: both changes stay.
			const more = Array.from({ length: 50 }, (_, index) => `9${String(index).padStart(17, '0')}`);
			await Promise.all([
				...ids(0).map((id) =>
					stores[0]!.update<Record<string, 1>>(bucket, (current) => {
						const { [id]: _gone, ...rest } = current ?? {};
						return { value: rest };
					})
				),
				...more.map((id) => stores[1]!.update<Record<string, 1>>(bucket, (current) => ({ value: { ...current, [id]: 1 } })))
			]);
			expect(Object.keys((await stores[1]!.get<Record<string, 1>>(bucket))!).sort()).toEqual([...ids(1), ...more].sort());
		} finally {
			await stores[0]!.keyv.clear();
			for (const store of stores) await store.close();
			cleanup();
		}
	});

	it('WHEN each updates the same 20 keys at once, many per call THEN no change is lost, and deletions and creations land', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		const { storeUrl, namespace, cleanup } = backend.url();
		const stores = [await MemoryStore.open({ storeUrl, namespace }), await MemoryStore.open({ storeUrl, namespace })];
		const keys = Array.from({ length: 20 }, (_, index) => `registry:servers:${index}`);
		try {
			await Promise.all(
				stores.map((store, side) =>
					Promise.all(
						Array.from({ length: 30 }, (_, round) =>
							store.updateMany<Record<string, 1>>(keys, (_key, current) => ({ value: { ...current, [`${side}-${round}`]: 1 } }))
						)
					)
				)
			);
			const everyId = Array.from({ length: 2 }, (_, side) => Array.from({ length: 30 }, (_, round) => `${side}-${round}`))
				.flat()
				.sort();
			for (const stored of await stores[0]!.getMany<Record<string, 1>>(keys)) expect(Object.keys(stored!).sort()).toEqual(everyId);

			// One call deletes half the keys, leaves one as it is, and creates a new one.
			await stores[1]!.updateMany<Record<string, 1>>([...keys.slice(0, 10), keys[10]!, 'registry:servers:99'], (key, current) => {
				if (key === keys[10]) return null;
				return current ? 'delete' : { value: { created: 1 } };
			});
			const after = await stores[0]!.getMany<Record<string, 1>>([...keys, 'registry:servers:99']);
			expect(after.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => undefined));
			expect(Object.keys(after[10]!).length).toBe(60);
			expect(after[20]).toEqual({ created: 1 });
		} finally {
			await stores[0]!.keyv.clear();
			for (const store of stores) await store.close();
			cleanup();
		}
	});
});
