/**
 * The SQLite store keeps a long value as a zlib stream (src/engine/store/sqliteValues.ts) in a table without a rowid:
 * read back as written by either driver, compared as text by a compare-and-set, gone from the file's bytes once deleted,
 * and found by the tests' own scan of the raw files (test/support/store-inspection.ts), which must not go blind to it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyvSqliteAdapter } from '../../src/engine/store/KeyvSqliteAdapter';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { SqliteAdapter } from '../../src/engine/store/SqliteAdapter';
import { COMPRESS_FROM_CHARS } from '../../src/engine/store/sqliteValues';
import { compressedTexts, sqliteFilesHolding } from '../support/store-inspection';

let directory: string | null = null;
afterEach(() => {
	if (directory) rmSync(directory, { recursive: true, force: true });
	directory = null;
});

function newPath(): string {
	directory = mkdtempSync(join(tmpdir(), 'memory-compression-'));
	return join(directory, 'memory.sqlite');
}

/** A chat-like value: JSON of messages, some 9 KB, as an archive chunk is. */
function chunkText(secret: string): string {
	const messages = Array.from({ length: 64 }, (_, at) => ({
		id: `15774095411028951${String(at).padStart(2, '0')}`,
		role: 'user',
		authorId: '800000000000017000',
		authorName: 'Maya',
		text: at === 40 ? `my secret word is ${secret}, keep it` : `message ${at} about the weekend and the bridge over the river`,
		ts: 1_796_154_141_451 + at
	}));
	return JSON.stringify({ value: { v: 1, d: messages }, expires: 1_799_178_141_215 });
}

function rawRow(path: string, key: string): { value: unknown; type: string } | undefined {
	const db = new Database(path, { readonly: true });
	try {
		return db.prepare<[string], { value: unknown; type: string }>('SELECT value, typeof(value) AS type FROM keyv WHERE key = ?').get(key);
	} finally {
		db.close();
	}
}

describe('GIVEN the engine’s SQLite store', () => {
	it('THEN a long value is stored as a shorter BLOB, a short one as its text, and both read back as written', async () => {
		const path = newPath();
		const adapter = new SqliteAdapter(path);
		const long = chunkText('quillwort');
		const short = 'x'.repeat(COMPRESS_FROM_CHARS - 1);
		await adapter.setMany([
			{ key: 'memory:long', value: long },
			{ key: 'memory:short', value: short }
		]);
		const stored = rawRow(path, 'memory:long')!;
		expect(stored.type).toBe('blob');
		expect((stored.value as Buffer).length).toBeLessThan(long.length / 2);
		expect(rawRow(path, 'memory:short')).toEqual({ value: short, type: 'text' });
		await adapter.disconnect();
		// A new connection, so nothing is answered from the connection's cache.
		const reopened = new SqliteAdapter(path);
		expect(await reopened.getMany(['memory:long', 'memory:short'])).toEqual([long, short]);
		const iterated = new Map<string, string>();
		for await (const [key, value] of reopened.iterator('memory')) iterated.set(key, value);
		expect(iterated.get('memory:long')).toBe(long);
		await reopened.disconnect();
	});

	it('THEN a new file’s table has no rowid, and a file made with one keeps it and works the same', async () => {
		const path = newPath();
		const fresh = new SqliteAdapter(path);
		expect(JSON.stringify(fresh.query("SELECT sql FROM sqlite_schema WHERE name = 'keyv'"))).toMatch(/WITHOUT ROWID/);
		await fresh.disconnect();
		const oldPath = join(directory!, 'old.sqlite');
		const old = new Database(oldPath);
		old.exec('CREATE TABLE keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
		old.prepare('INSERT INTO keyv VALUES (?, ?)').run('memory:kept', 'written before');
		old.close();
		const adapter = new SqliteAdapter(oldPath);
		expect(JSON.stringify(adapter.query("SELECT sql FROM sqlite_schema WHERE name = 'keyv'"))).not.toMatch(/WITHOUT ROWID/);
		await adapter.set('memory:long', chunkText('quillwort'));
		expect(await adapter.getMany(['memory:kept', 'memory:long'])).toEqual(['written before', chunkText('quillwort')]);
		await adapter.disconnect();
	});

	it('WHEN a compressed row is compared and set THEN its text is what is compared', async () => {
		const path = newPath();
		const adapter = new SqliteAdapter(path);
		const first = chunkText('first');
		await adapter.set('memory:row', first);
		expect(await adapter.compareAndSet('memory:row', chunkText('other'), chunkText('lost'))).toBe(false);
		expect(await adapter.compareAndSet('memory:row', first, chunkText('second'))).toBe(true);
		expect(await adapter.compareAndSet('memory:row', chunkText('second'), undefined)).toBe(true);
		expect(await adapter.get('memory:row')).toBeUndefined();
		await adapter.disconnect();
	});

	it('WHEN the @keyv/sqlite driver opens the file THEN it reads the compressed rows as text, and compares and sets them', async () => {
		const path = newPath();
		const engineDriver = new SqliteAdapter(path);
		await engineDriver.set('memory:row', chunkText('first'));
		await engineDriver.disconnect();
		const keyvDriver = await KeyvSqliteAdapter.open(path);
		expect(await keyvDriver.get('memory:row')).toBe(chunkText('first'));
		expect(await keyvDriver.getMany(['memory:row'])).toEqual([chunkText('first')]);
		expect(await keyvDriver.compareAndSet('memory:row', chunkText('other'), chunkText('lost'))).toBe(false);
		expect(await keyvDriver.compareAndSet('memory:row', chunkText('first'), chunkText('second'))).toBe(true);
		expect(await keyvDriver.get('memory:row')).toBe(chunkText('second'));
		await keyvDriver.disconnect();
	});
});

describe('GIVEN a compressed row that does not inflate (a damaged row)', () => {
	it('THEN the store reads it as damaged, the rows beside it as they are, and the next write replaces it', async () => {
		const path = newPath();
		const adapter = new SqliteAdapter(path);
		await adapter.set('memory:kept', chunkText('kept'));
		await adapter.disconnect();
		const db = new Database(path);
		db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)').run('memory:broken', Buffer.from('78 01 not a zlib stream at all'));
		db.close();
		const store = await MemoryStore.open({ storeUrl: `sqlite://${path}`, namespace: 'memory' });
		try {
			const [broken, kept] = await store.getManyChecked<unknown>(['broken', 'kept']);
			expect(broken).toEqual({ value: undefined, damaged: true });
			expect(kept!.damaged).toBe(false);
			await store.update<{ fixed: boolean }>('broken', () => ({ value: { fixed: true } }));
			expect(await store.get('broken')).toEqual({ fixed: true });
		} finally {
			await store.close();
		}
	});
});

describe('GIVEN the tests’ scan of an SQLite file’s raw bytes', () => {
	it('THEN it finds a word inside a compressed value, in the log and then in the database', async () => {
		const path = newPath();
		const adapter = new SqliteAdapter(path);
		await adapter.set('memory:long', chunkText('quillwort'));
		expect(readFileSync(`${path}-wal`).includes('quillwort')).toBe(false);
		expect(sqliteFilesHolding(`sqlite://${path}`, 'quillwort')).toEqual([`${path}-wal`]);
		await adapter.checkpoint();
		expect(readFileSync(path).includes('quillwort')).toBe(false);
		expect(sqliteFilesHolding(`sqlite://${path}`, 'quillwort')).toEqual([path]);
		expect(compressedTexts(readFileSync(path)).some((text) => text.includes('bridge over the river'))).toBe(true);
		await adapter.disconnect();
	});

	it('WHEN a compressed row is deleted and the log emptied THEN no run of its stored bytes is left in any file', async () => {
		const path = newPath();
		const adapter = new SqliteAdapter(path);
		await adapter.setMany([
			{ key: 'memory:gone', value: chunkText('quillwort') },
			{ key: 'memory:kept', value: chunkText('marshmallow') }
		]);
		await adapter.checkpoint();
		const stored = rawRow(path, 'memory:gone')!.value as Buffer;
		const kept = rawRow(path, 'memory:kept')!.value as Buffer;
		// Every 32 bytes of the stream, wherever its parts lie (a page of its own, the rest of another), but those the kept
		// value's stream holds too: the two begin alike.
		const runs = Array.from({ length: Math.floor(stored.length / 32) }, (_, at) => stored.subarray(at * 32, at * 32 + 32)).filter(
			(run) => !kept.includes(run)
		);
		expect(runs.length).toBeGreaterThan(10);
		expect(runs.every((run) => readFileSync(path).includes(run))).toBe(true);
		await adapter.delete('memory:gone');
		await adapter.checkpoint();
		for (const file of [path, `${path}-wal`]) {
			const bytes = readFileSync(file);
			expect(
				runs.filter((run) => bytes.includes(run)),
				file
			).toEqual([]);
		}
		expect(sqliteFilesHolding(`sqlite://${path}`, 'quillwort')).toEqual([]);
		expect(sqliteFilesHolding(`sqlite://${path}`, 'marshmallow')).toEqual([path]);
		await adapter.disconnect();
	});
});
