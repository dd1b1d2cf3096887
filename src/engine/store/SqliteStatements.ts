import type Database from 'better-sqlite3';
import { type SqliteValue, valueText } from './sqliteValues';

/** The statements of the SQLite store, each prepared once on its connection. */
export interface SqliteStatements {
	get: Database.Statement<[string], { value: SqliteValue }>;
	getMany: Database.Statement<[string], { key: string; value: SqliteValue }>;
	set: Database.Statement<[string, SqliteValue]>;
	delete: Database.Statement<[string]>;
	clear: Database.Statement<[string]>;
	clearAll: Database.Statement<[]>;
	iterate: Database.Statement<[string], { key: string; value: SqliteValue }>;
	insertNew: Database.Statement<[string, SqliteValue]>;
	/** Compare the text a row holds (see sqliteValues.ts), however it is stored. */
	deleteIf: Database.Statement<[string, string]>;
	replaceIf: Database.Statement<[SqliteValue, string, string]>;
}

/** The SQL function that reads a row's value as text, however it is stored (see sqliteValues.ts): what a compare-and-set compares. */
const VALUE_TEXT = 'memory_value_text';

/**
 * Creates the store's `table` if it is missing and prepares its statements. `table` is a checked name: it is written into
 * the SQL. The table has the columns @keyv/sqlite creates (so either driver opens the other's file), without a rowid: its
 * key is its B-tree's, where a rowid table keeps every key a second time in the index of its primary key (some 13 MiB per
 * 100,000 archived messages, a marker's key each). A file created with a rowid table keeps it, and works the same.
 */
export function prepareStatements(db: Database.Database, table: string): SqliteStatements {
	db.exec(`CREATE TABLE IF NOT EXISTS ${table} (key VARCHAR(255) PRIMARY KEY, value TEXT) WITHOUT ROWID`);
	db.function(VALUE_TEXT, { deterministic: true }, (value: unknown) => valueText(value) ?? null);
	return {
		get: db.prepare(`SELECT value FROM ${table} WHERE key = ?`),
		getMany: db.prepare(`SELECT key, value FROM ${table} WHERE key IN (SELECT value FROM json_each(?))`),
		set: db.prepare(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
		delete: db.prepare(`DELETE FROM ${table} WHERE key = ?`),
		clear: db.prepare(`DELETE FROM ${table} WHERE key LIKE ? ESCAPE '\\'`),
		clearAll: db.prepare(`DELETE FROM ${table}`),
		iterate: db.prepare(`SELECT key, value FROM ${table} WHERE key LIKE ? ESCAPE '\\'`),
		insertNew: db.prepare(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`),
		deleteIf: db.prepare(`DELETE FROM ${table} WHERE key = ? AND ${VALUE_TEXT}(value) = ?`),
		replaceIf: db.prepare(`UPDATE ${table} SET value = ? WHERE key = ? AND ${VALUE_TEXT}(value) = ?`)
	};
}

/** `text` as a literal inside a SQL `LIKE … ESCAPE '\'` pattern (SQLite and PostgreSQL alike). */
export function likeEscape(text: string): string {
	return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
