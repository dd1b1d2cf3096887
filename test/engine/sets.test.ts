import Database from 'better-sqlite3';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { sqlitePath } from '../../src/engine/store/backends';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { createSetsTable } from '../../src/engine/store/SqliteSets';
import { backends } from '../support/backends';

/** A store to test: one of the suite's backends, or a plain Keyv the host passes (a Map, no sets of its own). */
interface SetsBackend {
	name: string;
	skipReason: string | null;
	/** Whether a batch fails whole (a transaction or one statement): SQLite with either driver, and PostgreSQL. */
	transactional: boolean;
	open(): Promise<{ open: () => Promise<MemoryStore>; storeUrl: string; cleanup: () => void }>;
}

const plainKeyv = new Keyv();
const setsBackends: SetsBackend[] = [
	...backends.map((backend) => ({
		name: backend.name,
		skipReason: backend.skipReason,
		transactional: backend.name !== 'redis',
		open: () => {
			const { storeUrl, namespace, cleanup } = backend.url();
			return Promise.resolve({
				open: () => MemoryStore.open({ storeUrl, namespace, sqliteDriver: backend.config.sqliteDriver }),
				storeUrl,
				cleanup
			});
		}
	})),
	{
		name: 'a plain Keyv',
		skipReason: null,
		transactional: false,
		open: () =>
			Promise.resolve({
				open: () => MemoryStore.open({ storeUrl: 'unused', namespace: 'memory', keyv: plainKeyv }),
				storeUrl: 'unused',
				cleanup: () => undefined
			})
	}
];

const ids = (count: number, from = 0) => Array.from({ length: count }, (_, index) => String(700000000000000000n + BigInt(from + index)));

describe.each(setsBackends)('sets of ids on $name', (backend) => {
	async function withStore(test: (store: MemoryStore, storeUrl: string) => Promise<void>): Promise<void> {
		const { open, storeUrl, cleanup } = await backend.open();
		const store = await open();
		try {
			await test(store, storeUrl);
		} finally {
			await store.keyv.clear();
			await store.close();
			cleanup();
		}
	}

	it('WHEN ids are added, some twice, and some removed THEN each set holds the rest, sorted, read for many keys in one call', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		await withStore(async (store) => {
			await store.addToSets([
				{ key: 'registry:users', members: ['3', '1', '2'] },
				{ key: 'registry:servers', members: ['9'] }
			]);
			await store.addToSets([{ key: 'registry:users', members: ['2', '4'] }]);
			await store.removeFromSets([
				{ key: 'registry:users', members: ['1', '5'] },
				{ key: 'registry:servers', members: ['9'] }
			]);
			expect(await store.setMembers(['registry:users', 'registry:servers', 'registry:none'])).toEqual([['2', '3', '4'], [], []]);
			await store.deleteSets(['registry:users']);
			expect(await store.setMembers(['registry:users'])).toEqual([[]]);
		});
	});

	it('WHEN a set is walked in pages THEN each member comes once, in order, and removing a page as it goes loses no other', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		await withStore(async (store) => {
			const members = ids(2500);
			await store.addToSets([{ key: 'registry:authors', members }]);
			const walked: string[] = [];
			let after: string | null = null;
			for (;;) {
				const page = await store.setMembersPage('registry:authors', after, 1000);
				walked.push(...page);
				if (page.length < 1000) break;
				after = page[page.length - 1]!;
				await store.removeFromSets([{ key: 'registry:authors', members: page }]);
			}
			expect(walked).toEqual([...members].sort());
			expect((await store.setMembers(['registry:authors']))[0]).toEqual(members.slice(2000));
		});
	});

	it('WHEN a batch of writes carries set additions THEN the values and the members both land', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		await withStore(async (store) => {
			await store.setMany(
				[
					{ key: 'test:1', value: { said: 'one' } },
					{ key: 'test:2', value: { said: 'two' }, ttlMs: 60_000 }
				],
				[{ key: 'registry:users', members: ['1', '2'] }]
			);
			expect(await store.getMany(['test:1', 'test:2'])).toEqual([{ said: 'one' }, { said: 'two' }]);
			expect(await store.setMembers(['registry:users'])).toEqual([['1', '2']]);
		});
	});

	it('WHEN a batch fails on a set addition THEN none of its values lands either', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		if (!backend.transactional) context.skip('Redis applies a MULTI whole against a crash, but does not roll back a failed command');
		await withStore(async (store, storeUrl) => {
			// The addition fails after the values were written in the same transaction (or statement): on a file, its sets'
			// table is gone; on PostgreSQL, the member is one the table refuses (NOT NULL).
			const file = storeUrl.startsWith('sqlite://') ? sqlitePath(storeUrl) : null;
			// Through the store's own connection where it runs any statement (@keyv/sqlite), else through a second one.
			const adapter = store.keyv.store as { run?: unknown; query: (sql: string) => Promise<unknown> };
			const onFile = async (sql: string) => {
				if (adapter.run) return adapter.query(sql);
				const other = new Database(file!);
				other.exec(sql);
				other.close();
			};
			if (file) await onFile('DROP TABLE keyv_sets');
			await expect(
				store.setMany(
					[{ key: 'test:1', value: { said: 'one' } }],
					[{ key: 'registry:users', members: [file ? '1' : (null as unknown as string)] }]
				)
			).rejects.toThrow();
			expect(await store.get('test:1')).toBeUndefined();
			if (file) await onFile(createSetsTable('keyv'));
		});
	});

	it('WHEN the store is scanned and cleared THEN its sets are seen with their members, and go', async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		await withStore(async (store) => {
			await store.set('sweep:lease', { owner: 'x', at: 1 });
			await store.addToSets([{ key: 'registry:servers', members: ['1', '2'] }]);
			const scanned = new Map<string, unknown>();
			for await (const [key, data] of store.scan()) scanned.set(key, data);
			expect(scanned.get('registry:servers')).toEqual(backend.name === 'a plain Keyv' ? { 1: 1, 2: 1 } : ['1', '2']);
			await store.keyv.clear();
			expect(await store.setMembers(['registry:servers'])).toEqual([[]]);
		});
	});
});

/** Two stores on one backend stand for two shard processes: each adds its ids while the other adds its own. */
describe.each(backends.filter((backend) => backend.name === 'postgres' || backend.name === 'redis'))(
	'sets of ids written by two processes at once on $name',
	(backend) => {
		it('WHEN each adds 3,000 ids to the same set at once, 30 per call THEN none is lost, and no compare-and-set ran', async (context) => {
			if (backend.skipReason) context.skip(backend.skipReason);
			const { storeUrl, namespace, cleanup } = backend.url();
			const stores = [await MemoryStore.open({ storeUrl, namespace }), await MemoryStore.open({ storeUrl, namespace })];
			let conditionalWrites = 0;
			for (const store of stores) {
				const adapter = store.keyv.store as {
					compareAndSet: (...args: unknown[]) => Promise<boolean>;
					compareAndSetMany: (...args: unknown[]) => Promise<boolean[]>;
				};
				const [one, many] = [adapter.compareAndSet, adapter.compareAndSetMany];
				Object.assign(adapter, {
					compareAndSet: (...args: unknown[]) => (conditionalWrites++, one(...args)),
					compareAndSetMany: (...args: unknown[]) => (conditionalWrites++, many(...args))
				});
			}
			try {
				const mine = [ids(3000), ids(3000, 3000)];
				const calls = (side: number) => Array.from({ length: 100 }, (_, call) => mine[side]!.slice(call * 30, call * 30 + 30));
				await Promise.all(
					stores.map((store, side) => Promise.all(calls(side).map((members) => store.addToSets([{ key: 'registry:users', members }]))))
				);
				expect((await stores[0]!.setMembers(['registry:users']))[0]).toEqual([...mine[0]!, ...mine[1]!].sort());
				expect(conditionalWrites).toBe(0);
				expect(stores.map((store) => store.readBack.repairs)).toEqual([0, 0]);
			} finally {
				await stores[0]!.keyv.clear();
				for (const store of stores) await store.close();
				cleanup();
			}
		});
	}
);
