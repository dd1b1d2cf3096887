/**
 * The SQLite file's rewrite after an erasure (`VACUUM`, src/engine/store/rewriteInWorker.ts) runs in a worker thread: the
 * event loop answers meanwhile, writes wait for it and then land, and a store closed during it loses nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteAdapter } from '../../src/engine/store/SqliteAdapter';
import { noise } from '../support/noise';

let directory: string | null = null;
afterEach(() => {
	if (directory) rmSync(directory, { recursive: true, force: true });
	directory = null;
});

/** An adapter on a file of some 20 MB, half of it deleted: a rewrite with work to do (some 100 ms here). */
async function fileWithFreePages(): Promise<{ adapter: SqliteAdapter; path: string }> {
	directory = mkdtempSync(join(tmpdir(), 'memory-rewrite-'));
	const path = join(directory, 'memory.sqlite');
	const adapter = new SqliteAdapter(path);
	const rows = Array.from({ length: 1_200 }, (_, at) => ({ key: `row:${at}`, value: `${at} ${noise(16_000)}` }));
	await adapter.setMany(rows);
	await adapter.deleteMany(rows.filter((_, at) => at % 2 === 1).map((row) => row.key));
	return { adapter, path };
}

const pageCount = (adapter: SqliteAdapter) => (adapter.query('PRAGMA page_count')[0] as { page_count: number }).page_count;
const freePages = (adapter: SqliteAdapter) => (adapter.query('PRAGMA freelist_count')[0] as { freelist_count: number }).freelist_count;

describe('GIVEN an SQLite file with the free pages an erasure leaves', () => {
	it('WHEN it is rewritten THEN reads are answered meanwhile, a write waits for the rewrite and lands, and no free page is left', async () => {
		const { adapter } = await fileWithFreePages();
		const before = pageCount(adapter);
		expect(freePages(adapter)).toBeGreaterThan(1_000);
		const events: string[] = [];
		const rewrite = adapter.vacuum().then(() => events.push('rewritten'));
		await nextTurn();
		const read = await adapter.get('row:0');
		events.push('read');
		const write = adapter.set('row:new', 'written during the rewrite').then(() => events.push('written'));
		await Promise.all([rewrite, write]);

		expect(read).toMatch(/^0 /);
		expect(events).toEqual(['read', 'rewritten', 'written']);
		expect(await adapter.get('row:new')).toBe('written during the rewrite');
		expect(freePages(adapter)).toBe(0);
		expect(pageCount(adapter)).toBeLessThan(before * 0.6);
		await adapter.disconnect();
	}, 60_000);

	it('WHEN the store closes during the rewrite THEN the writes queued meanwhile land before it closes', async () => {
		const { adapter, path } = await fileWithFreePages();
		const rewrite = adapter.vacuum();
		await nextTurn();
		const write = adapter.set('row:late', 'queued while rewriting');
		await adapter.disconnect();
		await Promise.all([rewrite, write]);
		const reopened = new SqliteAdapter(path);
		expect(await reopened.get('row:late')).toBe('queued while rewriting');
		await reopened.disconnect();
	}, 60_000);
});
