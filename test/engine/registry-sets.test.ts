import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryEngine } from '../../src';
import { OLD_REGISTRY_BUCKETS, Registry } from '../../src/engine/records/Registry';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { StoreInspection } from '../support/store-inspection';
import { MAYA, turn } from '../support/turns';

const ids = (count: number, from = 0) => Array.from({ length: count }, (_, index) => String(800000000000000000n + BigInt(from + index)));

afterEach(() => {
	vi.restoreAllMocks();
});

describe.each(backends)('the registries on $name', (backend) => {
	it('GIVEN a store of 64 buckets per kind WHEN the engine opens it THEN each id is in its set, and the buckets are gone', async (context) => {
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
		const t = freshEngineEachTest(backend, clock);

		it('WHEN a member is noted again THEN nothing more is written, and ids added by two registries at once are all kept', async () => {
			const [mine, theirs] = [new Registry(t.inspect.store!), new Registry(t.inspect.store!)];
			const adds = vi.spyOn(t.inspect.store!, 'addToSets');
			const everyId = ids(400);
			await Promise.all(everyId.map((id, index) => (index % 2 === 0 ? mine : theirs).note('users', id)));
			await Promise.all(everyId.map((id, index) => (index % 2 === 0 ? mine : theirs).note('users', id)));
			expect(adds).toHaveBeenCalledTimes(400);
			expect(await t.inspect.registered('users')).toEqual(everyId);
		});

		it('WHEN the sweep walks a registry of 2,500 ids THEN it reads slices of at most 1,000, and drops the ids whose data is gone', async () => {
			await t.engine.recordTurn(turn({ who: MAYA, text: 'still here' }));
			const registry = new Registry(t.inspect.store!);
			const stale = ids(2500);
			for (let at = 0; at < stale.length; at += 500)
				await t.inspect.store!.addToSets([{ key: 'registry:users', members: stale.slice(at, at + 500) }]);
			const pages = vi.spyOn(Registry.prototype, 'page');

			await t.engine.sweep();

			const userPages = pages.mock.calls.filter(([kind]) => kind === 'users');
			expect(userPages.length).toBeGreaterThanOrEqual(3);
			expect(pages.mock.calls.every(([, , limit]) => limit === undefined || limit <= 1000)).toBe(true);
			expect(await registry.every('users')).toEqual([MAYA.id]);
		});
	});
});
