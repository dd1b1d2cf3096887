/**
 * The SQLite adapter keeps the values its connection read or wrote until another connection commits
 * (src/engine/store/ConnectionCache.ts). Each test makes the cache wrong if it can: another connection writing the file,
 * raw SQL on the same connection, a refused compare-and-set, a batch that rolls back, a deletion.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src/engine';
import { SqliteAdapter } from '../../src/engine/store/SqliteAdapter';
import { TestClock } from '../support/backends';
import { ask, MAYA, said, THEO, turn } from '../support/turns';

const opened: { close: () => unknown }[] = [];
let directory: string | null = null;

function file(): string {
	directory ??= mkdtempSync(join(tmpdir(), 'memory-cache-'));
	return join(directory, 'memory.sqlite');
}

function adapter(path = file()): SqliteAdapter {
	const made = new SqliteAdapter(path);
	opened.push({ close: () => made.disconnect() });
	return made;
}

afterEach(async () => {
	for (const item of opened.splice(0)) await item.close();
	if (directory) rmSync(directory, { recursive: true, force: true });
	directory = null;
});

describe('GIVEN an SQLite adapter that found a row absent (a member with no profile, read at every context)', () => {
	it('WHEN another connection, a plain better-sqlite3 connection, raw SQL or the adapter itself writes it THEN the adapter reads it', async () => {
		const path = file();
		const mine = adapter(path);
		const other = adapter(path);
		expect(await mine.getMany(['a', 'b', 'c', 'd'])).toEqual([undefined, undefined, undefined, undefined]);
		await other.set('a', 'from another connection');
		expect(await mine.get('a')).toBe('from another connection');
		expect(await mine.getMany(['b', 'c', 'd'])).toEqual([undefined, undefined, undefined]);
		const raw = new Database(path);
		raw.prepare(`INSERT INTO keyv (key, value) VALUES ('b', 'by hand')`).run();
		raw.close();
		expect(await mine.get('b')).toBe('by hand');
		expect(await mine.getMany(['c', 'd'])).toEqual([undefined, undefined]);
		mine.query(`INSERT INTO keyv (key, value) VALUES ('c', 'raw') RETURNING key`);
		expect(await mine.get('c')).toBe('raw');
		expect(await mine.get('d')).toBeUndefined();
		await mine.set('d', 'mine');
		expect(await mine.get('d')).toBe('mine');
	});
});

describe('GIVEN an SQLite adapter that has read a value', () => {
	it('WHEN another connection rewrites or deletes the row THEN the adapter reads what the file holds', async () => {
		const path = file();
		const mine = adapter(path);
		const other = adapter(path);
		await mine.set('k', 'first');
		expect(await mine.get('k')).toBe('first');

		await other.set('k', 'second');
		expect(await mine.get('k')).toBe('second');
		expect(await mine.getMany(['k', 'missing'])).toEqual(['second', undefined]);

		await other.delete('k');
		expect(await mine.get('k')).toBeUndefined();
	});

	it('WHEN a process without the adapter (plain better-sqlite3) changes the row THEN the adapter reads the change', async () => {
		const path = file();
		const mine = adapter(path);
		await mine.set('k', 'first');
		expect(await mine.get('k')).toBe('first');
		const raw = new Database(path);
		raw.prepare(`UPDATE keyv SET value = 'hand edit' WHERE key = 'k'`).run();
		raw.close();
		expect(await mine.get('k')).toBe('hand edit');
	});

	it('WHEN raw SQL on its own connection changes the row THEN the adapter reads the change', async () => {
		const mine = adapter();
		await mine.set('k', 'first');
		expect(await mine.get('k')).toBe('first');
		mine.query(`UPDATE keyv SET value = 'raw' WHERE key = 'k' RETURNING key`);
		expect(await mine.get('k')).toBe('raw');
	});

	it('WHEN it writes, deletes or clears the row itself THEN it reads its own write', async () => {
		const mine = adapter();
		await mine.setMany([
			{ key: 'a', value: '1' },
			{ key: 'b', value: '2' }
		]);
		expect(await mine.getMany(['a', 'b'])).toEqual(['1', '2']);
		await mine.set('a', '3');
		await mine.deleteMany(['b']);
		expect(await mine.getMany(['a', 'b'])).toEqual(['3', undefined]);
		await mine.clear();
		expect(await mine.getMany(['a', 'b'])).toEqual([undefined, undefined]);
	});

	it('WHEN another connection changes the row before its compare-and-set THEN the write is refused and it reads the other’s value', async () => {
		const path = file();
		const mine = adapter(path);
		const other = adapter(path);
		await mine.set('k', 'v1');
		expect(await mine.get('k')).toBe('v1');
		await other.set('k', 'v2');
		expect(await mine.compareAndSet('k', 'v1', 'mine')).toBe(false);
		expect(await mine.get('k')).toBe('v2');
		expect(await mine.compareAndSet('k', 'v2', 'mine')).toBe(true);
		expect(await mine.get('k')).toBe('mine');
		expect(await other.get('k')).toBe('mine');
	});

	it('WHEN a batch fails halfway and rolls back THEN it reads the values from before the batch', async () => {
		const mine = adapter();
		await mine.set('a', 'before');
		expect(await mine.get('a')).toBe('before');
		// better-sqlite3 refuses to bind an object: the second write throws inside the transaction.
		await expect(
			mine.setMany([
				{ key: 'a', value: 'after' },
				{ key: 'b', value: {} as string }
			])
		).rejects.toThrow();
		expect(await mine.getMany(['a', 'b'])).toEqual(['before', undefined]);
	});
});

describe('GIVEN two engines on one SQLite file (two shards)', () => {
	it('WHEN one records turns in a channel the other has read THEN the other’s next context shows them', async () => {
		const path = file();
		const clock = new TestClock();
		const open = async () => {
			const engine = await MemoryEngine.open({ env: {}, now: clock.now, config: { storeUrl: `sqlite://${path}`, sweepIntervalMinutes: 0 } });
			opened.push({ close: () => engine.close() });
			return engine;
		};
		const first = await open();
		const second = await open();
		await first.recordTurn(turn({ text: 'the ferry leaves at nine', timestamp: clock.current }));
		expect((await first.buildContext(ask())).text).toContain('the ferry leaves at nine');

		clock.advance(60_000);
		await second.recordTurn(
			turn({ history: [said(THEO, 'the ferry is cancelled, take the bus', clock.current)], who: THEO, timestamp: clock.current })
		);
		clock.advance(60_000);
		const context = (await first.buildContext(ask({ userId: MAYA.id }))).text;
		expect(context).toContain('the ferry is cancelled, take the bus');
		expect(context).toContain('the ferry leaves at nine');
	});
});
