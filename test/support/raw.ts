import { execFileSync } from 'node:child_process';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { sqlitePath } from '../../src/engine/store/backends';

/**
 * Every key and value the store holds, one `key value` line each, read around the engine: with the
 * `sqlite3` command on an SQLite file, through a fresh MemoryStore on Redis and PostgreSQL.
 */
export async function rawRows({ storeUrl, namespace }: { storeUrl: string; namespace: string }): Promise<string[]> {
	if (storeUrl.startsWith('sqlite://')) {
		const out = execFileSync('sqlite3', ['-readonly', sqlitePath(storeUrl), "SELECT key || ' ' || value FROM keyv"], {
			encoding: 'utf8',
			maxBuffer: 512 * 1024 * 1024
		});
		return out.split('\n').filter(Boolean);
	}
	const store = await MemoryStore.open({ storeUrl, namespace });
	try {
		const rows: string[] = [];
		for await (const [key, value] of store.keyv.iterator!(namespace)) rows.push(`${String(key)} ${JSON.stringify(value)}`);
		return rows;
	} finally {
		await store.close();
	}
}

/** The rows that mention `text`. */
export async function rowsHolding(opened: { storeUrl: string; namespace: string }, text: string): Promise<string[]> {
	return (await rawRows(opened)).filter((row) => row.includes(text));
}
