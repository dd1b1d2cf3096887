/**
 * Archives as a version before located archives wrote them (docs/storage.md, "Located archives"), made from a store the
 * current engine wrote, and an oracle of what a located archive must say of itself. A test writes the current engine's
 * store, closes the engine, calls {@link unlocate} on the raw rows (a Map a Keyv wraps, or an SQLite file on a connection
 * of its own), and opens an engine again: the "upgrade". {@link locationProblems} then says, archive by archive, where a
 * located archive's markers and chunk sets fail to name where its messages are.
 *
 * Rows are rewritten as the adapter holds them: `{"value":{"v":1,"d":…},"expires":…}` (the engine's envelope inside keyv's
 * row), the expiry kept; on a host's Keyv a set is such a value (member → 1, see KeyvSets), on SQLite a set is rows of the
 * `<table>_sets` table (SqliteSets), a long value a zlib BLOB (sqliteValues.ts).
 */
import Database from 'better-sqlite3';
import { chunksOf } from '../../src/engine/archive/locations';
import { indexedAuthorsOf, replyFingerprint } from '../../src/engine/privacy/voices';
import { type ArchiveHead, ArchiveMarker, type StoredMessage, type Tombstones } from '../../src/engine/schemas';
import { sqlitePath } from '../../src/engine/store/backends';
import { Keys, parseScopeKey, scopeTag } from '../../src/engine/store/keys';
import { storedValue, valueText } from '../../src/engine/store/sqliteValues';
import type { DecodedStore } from './store-inspection';

/** Raw rows of a store, read and rewritten around the engine (which must be closed, or never read them again cached). */
export interface RawRowAccess {
	/** Every value row: key without the namespace → the row's text as keyv serialized it. */
	rows(): Map<string, string>;
	/** Writes a row's text under a key (without the namespace). */
	write(key: string, text: string): void;
	remove(key: string): void;
	/** The keys (without the namespace) of the backend's own sets; none on a host's Keyv, whose sets are values. */
	setKeys(): string[];
	removeSet(key: string): void;
	/** Ends the access (the SQLite connection). */
	close(): void;
}

/** The rows of a Map a Keyv wraps (`new Keyv({ store: map })`): keys under keyv's namespace, each value keyv's serialized text. */
export function mapRows(map: Map<string, unknown>, namespace = 'keyv'): RawRowAccess {
	const prefix = `${namespace}:`;
	// Map.prototype's own methods: a store class may count or delay its reads, and these are not the engine's.
	const get = (key: string) => Map.prototype.get.call(map, key) as unknown;
	return {
		rows: () =>
			new Map(
				[...Map.prototype.keys.call(map)]
					.map(String)
					.filter((key) => key.startsWith(prefix))
					.map((key) => [key.slice(prefix.length), String(get(key))])
			),
		write: (key, text) => void Map.prototype.set.call(map, `${prefix}${key}`, text),
		remove: (key) => void Map.prototype.delete.call(map, `${prefix}${key}`),
		setKeys: () => [],
		removeSet: () => undefined,
		close: () => undefined
	};
}

/** The rows of an SQLite store file, on a connection of its own; the engine on it must be closed. */
export function sqliteRowAccess(storeUrl: string, namespace = 'memory', table = 'keyv'): RawRowAccess {
	const db = new Database(sqlitePath(storeUrl));
	const prefix = `${namespace}:`;
	const like = `${namespace.replace(/[%_\\]/g, '\\$&')}:%`;
	return {
		rows: () =>
			new Map(
				db
					.prepare<[string], { key: string; value: string | Buffer }>(`SELECT key, value FROM ${table} WHERE key LIKE ? ESCAPE '\\'`)
					.all(like)
					.map(({ key, value }) => [key.slice(prefix.length), valueText(value)!])
			),
		write: (key, text) =>
			void db
				.prepare(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`)
				.run(`${prefix}${key}`, storedValue(text)),
		remove: (key) => void db.prepare(`DELETE FROM ${table} WHERE key = ?`).run(`${prefix}${key}`),
		setKeys: () =>
			db
				.prepare<[string], string>(`SELECT DISTINCT key FROM ${table}_sets WHERE key LIKE ? ESCAPE '\\'`)
				.pluck()
				.all(like)
				.map((key) => key.slice(prefix.length)),
		removeSet: (key) => void db.prepare(`DELETE FROM ${table}_sets WHERE key = ?`).run(`${prefix}${key}`),
		close: () => db.close()
	};
}

/** What {@link unlocate} changed. */
export interface Unlocated {
	/** Heads that said `located` and no longer do. */
	heads: number;
	/** Markers rewritten to 1 (archived) or 2 (edited away). */
	markers: number;
	/** Of those, markers of messages removed before (tombstones: 3 become 1, as older versions left them). */
	tombstones: number;
	/** Of those, markers of messages an edit took out (their replies kept): 2. */
	editedAway: number;
	/** Fingerprint markers (`~…`) deleted. */
	fingerprints: number;
	/** Chunk sets (`archive:<scope>:by:<userId>`) deleted. */
	chunkSets: number;
	/** Tagged markers moved to their untagged keys (with `untag`). */
	untagged: number;
}

interface ArchiveRows {
	head: ArchiveHead;
	/** Every id of a message its chunks hold. */
	archived: Set<string>;
	tombstones: Tombstones;
}

interface Row {
	value?: { v?: number; d?: unknown };
	expires?: number | null;
}

const HEAD_KEY = /^archive:(.+):head$/;
const CHUNK_KEY = /^archive:(.+):chunk:(\d+)$/;
const TAGGED_MARKER_KEY = /^seen:([\w-]{16}):(.+)$/;
const UNTAGGED_MARKER_KEY = /^archive:(.+):seen:(.+)$/;
const CHUNK_SET_KEY = /^archive:.+:by:[^:]+$/;

function isLocation(marker: unknown): marker is { c?: number; r?: number[] } {
	return typeof marker === 'object' && marker !== null && !Array.isArray(marker);
}

/**
 * Turns a store the current engine wrote into what a version before located archives wrote: no head says `located`; each
 * marker of a message its archive's chunks hold is 1; a message removed before (in the archive's tombstones) keeps 1, and
 * one an edit took out (a location without a chunk) is 2; no fingerprint markers (`~…`); no chunk sets. With `untag`, every
 * marker also moves to its untagged key (`archive:<scope>:seen:<id>`), as archives older still hold them.
 */
export function unlocate(access: RawRowAccess, { untag = false } = {}): Unlocated {
	const done: Unlocated = { heads: 0, markers: 0, tombstones: 0, editedAway: 0, fingerprints: 0, chunkSets: 0, untagged: 0 };
	const rows = access.rows();
	const parsed = (text: string): Row | null => {
		try {
			return JSON.parse(text) as Row;
		} catch {
			// A damaged row (a test's garbage) is no head, marker or set of anything.
			return null;
		}
	};
	const data = (key: string) => parsed(rows.get(key) ?? 'null')?.value?.d;
	const rewrite = (key: string, change: (d: unknown) => unknown, to = key) => {
		const row = parsed(rows.get(key)!)!;
		const text = JSON.stringify({ ...row, value: { ...row.value, d: change(row.value?.d) } });
		if (to !== key) access.remove(key);
		access.write(to, text);
	};

	const archives = new Map<string, ArchiveRows>();
	for (const key of rows.keys()) {
		const scopeKey = HEAD_KEY.exec(key)?.[1];
		const head = scopeKey === undefined ? undefined : (data(key) as ArchiveHead | undefined);
		if (scopeKey === undefined || !head) continue;
		const tombstones = (data(Keys.archiveTombstones(scopeKey)) ?? {}) as Tombstones;
		archives.set(scopeKey, { head, archived: new Set(), tombstones });
	}
	for (const key of rows.keys()) {
		const chunk = CHUNK_KEY.exec(key);
		const archive = chunk ? archives.get(chunk[1]!) : undefined;
		const messages = archive ? data(key) : undefined;
		if (Array.isArray(messages)) for (const message of messages as StoredMessage[]) archive!.archived.add(message.id);
	}
	const scopeOfTag = new Map([...archives.keys()].map((scopeKey) => [scopeTag(scopeKey), scopeKey]));

	for (const [scopeKey, { head }] of archives) {
		if (head.located !== true) continue;
		rewrite(Keys.archiveHead(scopeKey), (d) => {
			const { located: _located, ...older } = d as ArchiveHead;
			return older;
		});
		done.heads++;
	}
	for (const key of rows.keys()) {
		const tagged = TAGGED_MARKER_KEY.exec(key);
		const untagged = tagged ? null : UNTAGGED_MARKER_KEY.exec(key);
		const scopeKey = tagged ? scopeOfTag.get(tagged[1]!) : untagged?.[1];
		const id = (tagged ?? untagged)?.[2];
		const archive = scopeKey === undefined ? undefined : archives.get(scopeKey);
		if (!archive || id === undefined) continue;
		if (id.startsWith('~')) {
			access.remove(key);
			done.fingerprints++;
			continue;
		}
		const marker = data(key);
		// A message an edit took out (not archived again since) keeps its replies: 2. Every other marker says "archived": 1.
		const edited = !archive.archived.has(id) && (marker === ArchiveMarker.editedAway || (isLocation(marker) && marker.c === undefined));
		const older = edited ? ArchiveMarker.editedAway : ArchiveMarker.archived;
		const to = untag && tagged ? Keys.archiveMarkerUntagged(scopeKey!, id) : key;
		if (older === marker && to === key) continue;
		rewrite(key, () => older, to);
		done.markers++;
		if (to !== key) done.untagged++;
		if (edited) done.editedAway++;
		else if (!archive.archived.has(id) && id in archive.tombstones) done.tombstones++;
	}
	for (const key of rows.keys()) {
		if (!CHUNK_SET_KEY.test(key) || !archives.has(key.slice('archive:'.length, key.lastIndexOf(':by:')))) continue;
		access.remove(key);
		done.chunkSets++;
	}
	for (const key of access.setKeys()) {
		if (!CHUNK_SET_KEY.test(key)) continue;
		access.removeSet(key);
		done.chunkSets++;
	}
	return done;
}

/** {@link unlocate} of a Map a Keyv wraps. */
export function unlocateMap(map: Map<string, unknown>, options: { untag?: boolean } = {}): Unlocated {
	return unlocate(mapRows(map), options);
}

/** {@link unlocate} of an SQLite store file (the engine on it closed). */
export function unlocateSqlite(storeUrl: string, options: { untag?: boolean } = {}): Unlocated {
	const access = sqliteRowAccess(storeUrl);
	try {
		return unlocate(access, options);
	} finally {
		access.close();
	}
}

/** The rows of a Map a Keyv wraps as store-inspection's RawRows (key without the namespace → row text), for decodeRows. */
export function mapStoreRows(map: Map<string, unknown>, namespace = 'keyv'): Map<string, string> {
	return mapRows(map, namespace).rows();
}

/** Each archive of a decoded store, by scope key: its head as stored. */
export function archiveHeads(store: DecodedStore): Map<string, ArchiveHead> {
	const heads = new Map<string, ArchiveHead>();
	for (const [key, value] of store.values) {
		const scopeKey = HEAD_KEY.exec(key)?.[1];
		if (scopeKey !== undefined && value) heads.set(scopeKey, value as ArchiveHead);
	}
	return heads;
}

/** The members of a set, as the backend holds it (a native set) or as a host's Keyv does (a value, member → 1). */
function setMembers(store: DecodedStore, key: string): string[] {
	return store.sets.get(key) ?? Object.keys((store.values.get(key) as Record<string, 1> | undefined) ?? {});
}

/**
 * Where a located archive fails to say where its messages are, one line each; empty when every located archive tells the
 * truth: each message's marker is a location naming the chunk that holds it; the marker of the message a persona reply
 * answers (when that message has one, and it is not 1) lists the reply's chunk, and is no tombstone (the reply would outlive it); a reply
 * without a host id is listed under its text's fingerprint; every member whose words a chunk holds (see indexedAuthorsOf)
 * has the chunk in their set; the marker of a message removed before is a tombstone (3) or a location, never 1 or 2.
 */
export function locationProblems(store: DecodedStore): string[] {
	const problems: string[] = [];
	for (const [scopeKey, head] of archiveHeads(store)) {
		if (head.located !== true) continue;
		const tag = scopeTag(scopeKey);
		const markerOf = (id: string) =>
			store.values.get(Keys.archiveMarker(scopeKey, id)) ?? store.values.get(Keys.archiveMarkerUntagged(scopeKey, id));
		const lists = (marker: unknown, chunk: number) => (chunksOf(marker) ?? []).includes(chunk) && marker !== ArchiveMarker.removed;
		const scope = parseScopeKey(scopeKey);
		const dmOwnerId = scope?.scope === 'user' ? scope.ownerId : null;
		const archived = new Set<string>();
		const sets = new Map<string, Set<string>>();
		const setOf = (authorId: string) => {
			const key = Keys.archiveAuthorChunks(scopeKey, authorId);
			return sets.get(key) ?? sets.set(key, new Set(setMembers(store, key))).get(key)!;
		};
		for (let chunk = head.first ?? 0; chunk < head.chunks; chunk++) {
			const messages = (store.values.get(Keys.archiveChunk(scopeKey, chunk)) as StoredMessage[] | undefined) ?? [];
			for (const message of messages) {
				archived.add(message.id);
				const own = markerOf(message.id);
				if (!isLocation(own) || own.c !== chunk)
					problems.push(`${scopeKey} (${tag}): ${message.id} in chunk ${chunk}, its marker ${JSON.stringify(own)}`);
				// The message a reply answers: not archived here (no marker), or its marker lists the reply's chunk; or, a
				// message archived here once and lost since (a chunk that could not be read, written over), 1, which makes its
				// deletion read the archive whole. Never 2: a turn bringing the message back would leave its replies unnamed.
				if (message.role === 'persona' && message.replyTo !== undefined) {
					const answered = markerOf(message.replyTo);
					if (answered !== undefined && answered !== ArchiveMarker.archived && !lists(answered, chunk))
						problems.push(
							`${scopeKey}: reply ${message.id} in chunk ${chunk}, the marker of ${message.replyTo} ${JSON.stringify(answered)}`
						);
				}
				const fingerprint = replyFingerprint(message);
				if (fingerprint !== null && !lists(markerOf(fingerprint), chunk))
					problems.push(
						`${scopeKey}: reply ${message.id} in chunk ${chunk}, its fingerprint's marker ${JSON.stringify(markerOf(fingerprint))}`
					);
				for (const authorId of indexedAuthorsOf(dmOwnerId, message))
					if (!setOf(authorId).has(String(chunk)))
						problems.push(`${scopeKey}: chunk ${chunk} holds words of ${authorId}, not in their chunk set`);
			}
		}
		// A message removed before: a tombstone, or a location (one written before it was removed names a chunk that no longer
		// holds it, which costs a read and hides nothing); never 1 or 2, which say nothing of where it was and make its next
		// deletion read the archive whole.
		const tombstones = (store.values.get(Keys.archiveTombstones(scopeKey)) as Tombstones | undefined) ?? {};
		for (const id of Object.keys(tombstones)) {
			if (archived.has(id)) continue;
			const marker = markerOf(id);
			if (marker !== undefined && marker !== ArchiveMarker.removed && chunksOf(marker) === null)
				problems.push(`${scopeKey}: ${id} removed before, its marker ${JSON.stringify(marker)}`);
		}
	}
	return problems;
}
