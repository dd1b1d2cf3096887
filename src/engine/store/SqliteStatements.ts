import type Database from 'better-sqlite3';

/** The statements of the SQLite store, each prepared once on its connection. */
export interface SqliteStatements {
	get: Database.Statement<[string], { value: string }>;
	getMany: Database.Statement<[string], { key: string; value: string }>;
	set: Database.Statement<[string, string]>;
	delete: Database.Statement<[string]>;
	clear: Database.Statement<[string]>;
	clearAll: Database.Statement<[]>;
	iterate: Database.Statement<[string], { key: string; value: string }>;
	insertNew: Database.Statement<[string, string]>;
	deleteIf: Database.Statement<[string, string]>;
	replaceIf: Database.Statement<[string, string, string]>;
}

/**
 * Creates the store's `table` if it is missing, as @keyv/sqlite creates it (so either driver opens the other's file), and
 * prepares its statements. `table` is a checked name: it is written into the SQL.
 */
export function prepareStatements(db: Database.Database, table: string): SqliteStatements {
	db.exec(`CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR(255) PRIMARY KEY, value TEXT)`);
	return {
		get: db.prepare(`SELECT value FROM ${table} WHERE key = ?`),
		getMany: db.prepare(`SELECT key, value FROM ${table} WHERE key IN (SELECT value FROM json_each(?))`),
		set: db.prepare(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
		delete: db.prepare(`DELETE FROM ${table} WHERE key = ?`),
		clear: db.prepare(`DELETE FROM ${table} WHERE key LIKE ? ESCAPE '\\'`),
		clearAll: db.prepare(`DELETE FROM ${table}`),
		iterate: db.prepare(`SELECT key, value FROM ${table} WHERE key LIKE ? ESCAPE '\\'`),
		insertNew: db.prepare(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`),
		deleteIf: db.prepare(`DELETE FROM ${table} WHERE key = ? AND value = ?`),
		replaceIf: db.prepare(`UPDATE ${table} SET value = ? WHERE key = ? AND value = ?`)
	};
}

/** `text` as a literal inside a SQL `LIKE … ESCAPE '\'` pattern (SQLite and PostgreSQL alike). */
export function likeEscape(text: string): string {
	return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
