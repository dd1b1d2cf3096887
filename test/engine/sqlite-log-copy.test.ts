/**
 * The SQLite store copies its write-ahead log into the database from a worker thread (src/engine/store/LogCopier.ts):
 * the event loop goes on while the copy runs, the erasure's truncation and the file's rewrite wait for a copy running,
 * the worker's connection is closed with the store, and a store whose worker is gone copies on its own thread.
 */
import { existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { LogCopier } from '../../src/engine/store/LogCopier';
import { SqliteAdapter } from '../../src/engine/store/SqliteAdapter';
import { noise } from '../support/noise';

let directory: string | null = null;
afterEach(() => {
	if (directory) rmSync(directory, { recursive: true, force: true });
	directory = null;
});

/** An adapter whose log holds some 20 MB that the database file does not (SQLite's own checkpoint waits for 64 MiB). */
async function fileWithFullLog(): Promise<{ adapter: SqliteAdapter; path: string }> {
	directory = mkdtempSync(join(tmpdir(), 'memory-log-copy-'));
	const path = join(directory, 'memory.sqlite');
	const adapter = new SqliteAdapter(path);
	await adapter.setMany(Array.from({ length: 1_200 }, (_, at) => ({ key: `row:${at}`, value: `${at} ${noise(16_000)}` })));
	return { adapter, path };
}

const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);

describe('GIVEN an SQLite store whose write-ahead log holds 20 MB', () => {
	it('WHEN the log is copied THEN it is emptied too, since it is past 4 MiB, and commits made meanwhile land after', async () => {
		const { adapter, path } = await fileWithFullLog();
		const copying = adapter.checkpointLog();
		const late = adapter.set('row:late', 'written while the log is emptied');
		await Promise.all([copying, late]);
		// The late row's commit waited for the emptying, then started the log over: a few pages, not 20 MB.
		expect(size(`${path}-wal`)).toBeLessThan(100_000);
		expect(await adapter.get('row:late')).toBe('written while the log is emptied');
		expect(await adapter.get('row:1199')).toMatch(/^1199 /);
		await adapter.disconnect();
	}, 60_000);

	it('WHEN the log holds less than 4 MiB THEN a copy leaves it as it is, to be reused from its start', async () => {
		directory = mkdtempSync(join(tmpdir(), 'memory-log-copy-'));
		const path = join(directory, 'memory.sqlite');
		const adapter = new SqliteAdapter(path);
		await adapter.setMany(Array.from({ length: 100 }, (_, at) => ({ key: `row:${at}`, value: `${at} ${noise(16_000)}` })));
		const before = size(`${path}-wal`);
		await adapter.checkpointLog();
		expect(before).toBeGreaterThan(1_000_000);
		expect(size(`${path}-wal`)).toBe(before);
		await adapter.disconnect();
	}, 60_000);

	it('WHEN the log is copied THEN the event loop turns while the copy runs, and the database file then holds it', async () => {
		const { adapter, path } = await fileWithFullLog();
		expect(size(path)).toBeLessThan(1_000_000);
		let turns = 0;
		const turning = setInterval(() => turns++, 0);
		try {
			await adapter.checkpointLog();
		} finally {
			clearInterval(turning);
		}
		// On the event loop's own thread the copy would have run within the call: no timer could have fired.
		expect(turns).toBeGreaterThan(0);
		expect(size(path)).toBeGreaterThan(19_000_000);
		expect(await adapter.get('row:7')).toMatch(/^7 /);
		await adapter.disconnect();
	}, 60_000);

	it('WHEN the log is truncated (an erasure) while a copy runs THEN the truncation waits for it and leaves the log empty', async () => {
		const { adapter, path } = await fileWithFullLog();
		const copying = adapter.checkpointLog();
		await adapter.checkpoint();
		await copying;
		expect(size(`${path}-wal`)).toBe(0);
		expect(size(path)).toBeGreaterThan(19_000_000);
		await adapter.disconnect();
	}, 60_000);

	it('WHEN the file is rewritten while a copy runs THEN the rewrite waits for it, and nothing is lost', async () => {
		const { adapter, path } = await fileWithFullLog();
		const copying = adapter.checkpointLog();
		await adapter.vacuum();
		await copying;
		expect(size(`${path}-wal`)).toBe(0);
		expect(await adapter.get('row:1199')).toMatch(/^1199 /);
		await adapter.disconnect();
	}, 60_000);

	it('WHEN the store closes during a copy THEN the copy ends, the writes queued land, and no connection keeps the log open', async () => {
		const { adapter, path } = await fileWithFullLog();
		const copying = adapter.checkpointLog();
		const late = adapter.set('row:late', 'queued while copying');
		await adapter.disconnect();
		await Promise.all([copying, late]);
		// SQLite deletes the log when the file's last connection closes: the worker's connection closed before the store's.
		expect(existsSync(`${path}-wal`)).toBe(false);
		const reopened = new SqliteAdapter(path);
		expect(await reopened.get('row:late')).toBe('queued while copying');
		await reopened.disconnect();
	}, 60_000);

	it("WHEN the copier's worker has ended THEN the copy runs on the store's own thread, and only the first one reports why", async () => {
		const { adapter, path } = await fileWithFullLog();
		await adapter.checkpointLog();
		// The worker ends as one that crashed would (reached through the adapter's field: nothing else ends it).
		const { copier } = (adapter as unknown as { logCopies: { copier: { worker: Worker } } }).logCopies;
		await copier.worker.terminate();
		await adapter.set('row:after', noise(2_000_000));
		await expect(adapter.checkpointLog()).rejects.toThrow(/ended with code/);
		const before = size(path);
		await adapter.set('row:later', noise(2_000_000));
		await adapter.checkpointLog();
		expect(size(path)).toBeGreaterThan(before);
		await adapter.disconnect();
	}, 60_000);
});

describe('GIVEN an SQLite store that was written, then left idle', () => {
	it('WHEN the copier has had nothing to copy for its idle time THEN its worker is closed, and the next copy starts one', async () => {
		directory = mkdtempSync(join(tmpdir(), 'memory-log-copy-'));
		const path = join(directory, 'memory.sqlite');
		const adapter = new SqliteAdapter(path, { logCopierIdleMs: 100 });
		const copierOf = () => (adapter as unknown as { logCopies: { copier: LogCopier | null } }).logCopies.copier;
		await adapter.set('row:1', noise(1_000_000));
		await adapter.checkpointLog();
		const first = copierOf();
		expect(first?.gone).toBe(false);
		await sleep(400);
		expect(copierOf()).toBeNull();
		expect(first?.gone).toBe(true);
		await adapter.set('row:2', noise(1_000_000));
		await adapter.checkpointLog();
		expect(copierOf()?.gone).toBe(false);
		expect(size(path)).toBeGreaterThan(2_000_000);
		await adapter.disconnect();
		expect(existsSync(`${path}-wal`)).toBe(false);
	}, 30_000);
});

describe('GIVEN an SQLite store whose file was moved away while it ran', () => {
	it("WHEN the log is copied THEN no new file appears at the path, and the copy runs on the store's own thread", async () => {
		directory = mkdtempSync(join(tmpdir(), 'memory-log-copy-'));
		const path = join(directory, 'memory.sqlite');
		const adapter = new SqliteAdapter(path);
		await adapter.set('row:1', 'x'.repeat(100_000));
		renameSync(path, join(directory, 'moved.sqlite'));
		await expect(adapter.checkpointLog()).rejects.toThrow(/unable to open|does not exist/i);
		expect(existsSync(path)).toBe(false);
		await adapter.set('row:2', 'y');
		expect(await adapter.get('row:1')).toHaveLength(100_000);
		await adapter.disconnect();
	}, 30_000);
});

describe('GIVEN a log copier on a file that cannot be opened', () => {
	it('WHEN it is asked to copy THEN it rejects with why, and tells it is gone', async () => {
		const copier = new LogCopier({
			path: join(tmpdir(), 'no-such-folder-for-memory', 'memory.sqlite'),
			busyTimeoutMs: 100,
			synchronous: 'NORMAL'
		});
		await expect(copier.copy()).rejects.toThrow(/directory does not exist|unable to open/i);
		expect(copier.gone).toBe(true);
		await copier.close();
	}, 30_000);
});
