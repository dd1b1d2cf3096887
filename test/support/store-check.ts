import { execFileSync } from 'node:child_process';
import type { MemoryEngine } from '../../src';
import type { ArchiveHead, AuthorListings, Listings, Tombstones } from '../../src/engine/schemas';
import { LISTING_SLACK_MS } from '../../src/engine/ledger/ScopeDirectory';
import { type MemoryConfig, resolveConfig } from '../../src/engine/config';
import { entryLifetimeMs } from '../../src/engine/ledger/entries';
import { DM_SERVER_ID, Keys, parseScopeKey } from '../../src/engine/store/keys';
import { REGISTRY_BUCKETS } from '../../src/engine/store/Registry';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { sqlitePath } from '../../src/engine/store/backends';
import { SCHEMA_VERSION } from '../../src/engine/store/envelope';
import type { ShortTermEntry, StoredMessage } from '../../src/engine/schemas';

/** Raw rows of a store: key (without the namespace) → the serialized value as the adapter holds it. */
export type RawRows = Map<string, string>;

/** Every row of an SQLite store file, read with the `sqlite3` command, around any engine. */
export function sqliteRows(storeUrl: string, namespace = 'memory'): RawRows {
	const out = execFileSync('sqlite3', ['-readonly', '-json', sqlitePath(storeUrl), 'SELECT key, value FROM keyv'], {
		encoding: 'utf8',
		maxBuffer: 512 * 1024 * 1024
	});
	const rows = out.trim() ? (JSON.parse(out) as { key: string; value: string }[]) : [];
	return new Map(rows.map(({ key, value }) => [key.startsWith(`${namespace}:`) ? key.slice(namespace.length + 1) : key, value]));
}

/** Every live row of a store on any backend, around the engine: `sqliteRows` on a file, keyv's iterator on a server. */
export async function storeRows({ storeUrl, namespace }: { storeUrl: string; namespace: string }): Promise<RawRows> {
	if (storeUrl.startsWith('sqlite://')) return sqliteRows(storeUrl, namespace);
	const store = await MemoryStore.open({ storeUrl, namespace });
	try {
		const rows: RawRows = new Map();
		for await (const [key, value] of store.keyv.iterator!(namespace)) rows.set(String(key), JSON.stringify({ value }));
		return rows;
	} finally {
		await store.close();
	}
}

/** What a store holds, decoded; rows that do not decode are listed in `problems`. */
export interface DecodedStore {
	values: Map<string, unknown>;
	problems: string[];
}

/** Decodes each row as keyv and the engine store it (`{ value: { v, d }, expires }`); rows past their keyv TTL are left out, as keyv does. */
export function decodeRows(rows: RawRows, now = Date.now()): DecodedStore {
	const values = new Map<string, unknown>();
	const problems: string[] = [];
	for (const [key, raw] of rows) {
		let row: { value?: { v?: unknown; d?: unknown }; expires?: number | null };
		try {
			row = JSON.parse(raw) as typeof row;
		} catch {
			problems.push(`${key}: does not parse`);
			continue;
		}
		if (typeof row.expires === 'number' && row.expires < now) continue;
		if (key === '__ping__') continue;
		if (row.value?.v !== SCHEMA_VERSION || !('d' in row.value)) {
			problems.push(`${key}: not a version-${SCHEMA_VERSION} envelope`);
			continue;
		}
		values.set(key, row.value.d);
	}
	return { values, problems };
}

const ARCHIVE_KEY = /^archive:(shortterm:(?:user|server):[^:]+:[^:]+(?::[^:]+)?):(head|tombstones|chunk:(\d+)|seen:(.+))$/;

interface ArchiveKeys {
	head?: ArchiveHead;
	tombstones?: Tombstones;
	chunks: Map<number, StoredMessage[]>;
	markers: Set<string>;
}

/**
 * What "nothing half-written" means, checked on every key of a store:
 * - every row decodes, with the current schema version;
 * - each archive's head names chunks that all exist, and no chunk lies outside it; no message is
 *   archived twice; every archived message has its marker, and every marker names an archived (or
 *   erased, tombstoned) message, so no marker hides a message from later appends;
 * - indexes cover the data: every short-term entry is listed in its directories, by a listing at
 *   least as new as it; every member's message in a live entry or archive is listed in the member's
 *   author index; every directory, archive and author index is in its registry.
 * Returns the problems found, empty when none.
 */
/** `config` gives the entries' lifetimes (the defaults unless a test changed them). */
export function checkStore(store: DecodedStore, config: MemoryConfig = resolveConfig({}, {})): string[] {
	const { values } = store;
	const problems = [...store.problems];
	const archives = new Map<string, ArchiveKeys>();
	const archiveOf = (scope: string) => archives.get(scope) ?? archives.set(scope, { chunks: new Map(), markers: new Set() }).get(scope)!;
	const registered = new Map<string, Set<string>>();
	for (let bucket = 0; bucket < REGISTRY_BUCKETS; bucket++) {
		for (const kind of ['servers', 'users', 'channels', 'archives', 'authors']) {
			const ids = Object.keys((values.get(Keys.registry(kind, bucket)) as Record<string, 1> | undefined) ?? {});
			registered.set(kind, new Set([...(registered.get(kind) ?? []), ...ids]));
		}
	}
	const entries = new Map<string, ShortTermEntry>();
	for (const [key, value] of values) {
		const archive = ARCHIVE_KEY.exec(key);
		if (archive) {
			const [, scope, part, chunk, marker] = archive;
			const keys = archiveOf(scope!);
			if (part === 'head') keys.head = value as ArchiveHead;
			else if (part === 'tombstones') keys.tombstones = value as Tombstones;
			else if (chunk !== undefined) keys.chunks.set(Number(chunk), value as StoredMessage[]);
			else keys.markers.add(marker!);
		} else if (key.startsWith('shortterm:')) {
			entries.set(key, value as ShortTermEntry);
		} else if (key.startsWith('index:') && !key.startsWith('index:author:')) {
			// `index:<kind>:<id>`; a channel's id is `<serverId>:<channelId>`.
			const [, kind, ...id] = key.split(':');
			if (!registered.get(`${kind}s`)?.has(id.join(':'))) problems.push(`${key}: not in registry:${kind}s`);
		} else if (key.startsWith('index:author:')) {
			if (!registered.get('authors')?.has(key.slice('index:author:'.length))) problems.push(`${key}: not in registry:authors`);
		}
	}

	/** Live scope → the members' messages it holds (entry and archive). */
	const held = new Map<string, StoredMessage[]>();
	for (const [scope, archive] of archives) {
		const messages: StoredMessage[] = [];
		const first = archive.head?.first ?? 0;
		const end = archive.head?.chunks ?? 0;
		for (let index = first; index < end; index++) {
			const chunk = archive.chunks.get(index);
			if (!chunk) problems.push(`${scope}: head names chunk ${index}, which is missing`);
			else messages.push(...chunk);
		}
		for (const index of archive.chunks.keys())
			if (index < first || index >= end) problems.push(`${scope}: chunk ${index} lies outside its head (${first}..${end - 1})`);
		const ids = new Set<string>();
		for (const message of messages) {
			if (ids.has(message.id)) problems.push(`${scope}: message ${message.id} archived twice`);
			ids.add(message.id);
			if (!archive.markers.has(message.id)) problems.push(`${scope}: message ${message.id} archived without its marker`);
		}
		for (const id of archive.markers)
			if (!ids.has(id) && !(id in (archive.tombstones ?? {})))
				problems.push(`${scope}: marker of ${id} names no archived message (it would hide it)`);
		if (archive.head && !registered.get('archives')?.has(scope)) problems.push(`${scope}: archive not in registry:archives`);
		held.set(scope, messages);
	}

	for (const [key, entry] of entries) {
		const parts = parseScopeKey(key);
		if (!parts) {
			problems.push(`${key}: not a scope key`);
			continue;
		}
		const directories =
			parts.scope === 'server'
				? [Keys.serverIndex(parts.ownerId)]
				: [Keys.userIndex(parts.ownerId), ...(entry.serverId === DM_SERVER_ID ? [] : [Keys.channelIndex(entry.serverId, entry.channelId)])];
		for (const directory of directories) {
			const listing = (values.get(directory) as Listings | undefined)?.[key];
			if (!listing) problems.push(`${key}: not listed in ${directory}`);
			// A steady conversation's listing is written ahead of time (see LISTING_SLACK_MS): it must cover the entry's whole life.
			else if (listing.expiresAt < entry.lastUpdated + entryLifetimeMs(entry, config)) {
				problems.push(
					`${key}: listed in ${directory} until ${listing.expiresAt}, before the entry expires (${entry.lastUpdated + entryLifetimeMs(entry, config)})`
				);
			} else if (listing.lastUpdated < entry.lastUpdated - LISTING_SLACK_MS)
				problems.push(`${key}: listed in ${directory} as of ${listing.lastUpdated}, far older than the entry (${entry.lastUpdated})`);
		}
		if (parts.scope === 'server' || entry.serverId === DM_SERVER_ID) held.set(key, [...(held.get(key) ?? []), ...entry.messages]);
	}

	for (const [scope, messages] of held) {
		const authors = new Set(messages.flatMap((message) => (message.role === 'user' && message.authorId ? [message.authorId] : [])));
		for (const authorId of authors) {
			if (!(values.get(Keys.authorIndex(authorId)) as AuthorListings | undefined)?.[scope])
				problems.push(`${scope}: holds messages of ${authorId}, whose author index does not list it`);
		}
	}
	return problems;
}

/**
 * Reads everything a store holds through the engine, as members and the bot would: a context for
 * every live scope (within its budget), status and export of every member. Returns what failed.
 */
export async function readThroughEngine(engine: MemoryEngine, store: DecodedStore): Promise<string[]> {
	const problems: string[] = [];
	const users = new Set<string>();
	const scopes: { userId: string; serverId: string | null; channelId: string; personaId: string | null }[] = [];
	for (const [key, value] of store.values) {
		if (key.startsWith('index:user:') || key.startsWith('index:author:')) users.add(key.split(':')[2]!);
		const parts = parseScopeKey(key);
		if (!parts) continue;
		const entry = value as ShortTermEntry;
		if (parts.scope === 'user') users.add(parts.ownerId);
		// The live scope: the server scope in a guild, the user scope in a DM.
		if (parts.scope === 'server')
			scopes.push({
				userId: entry.messages.find((message) => message.role === 'user')?.authorId ?? '1',
				serverId: parts.ownerId,
				channelId: parts.channelId,
				personaId: parts.personaId
			});
		else if (entry.serverId === DM_SERVER_ID)
			scopes.push({ userId: parts.ownerId, serverId: null, channelId: parts.channelId, personaId: parts.personaId });
	}
	for (const scope of scopes) {
		try {
			const context = await engine.buildContext({ ...scope, query: 'what did we say', tokenBudget: 800 });
			if (context.tokens > 800) problems.push(`context of ${JSON.stringify(scope)}: ${context.tokens} tokens over the budget of 800`);
		} catch (error) {
			problems.push(`context of ${JSON.stringify(scope)}: ${(error as Error).message}`);
		}
	}
	for (const userId of users) {
		try {
			await engine.status(userId);
			await engine.exportUser(userId);
		} catch (error) {
			problems.push(`status or export of ${userId}: ${(error as Error).message}`);
		}
	}
	return problems;
}

/** Live scope → the ids of the messages its archive holds (the chunks its head names). */
export function archivedIds(store: DecodedStore): Map<string, Map<string, number>> {
	const heads = new Map<string, ArchiveHead>();
	for (const [key, value] of store.values) {
		const match = ARCHIVE_KEY.exec(key);
		if (match?.[2] === 'head') heads.set(match[1]!, value as ArchiveHead);
	}
	const archived = new Map<string, Map<string, number>>();
	for (const [scope, head] of heads) {
		const ids = new Map<string, number>();
		for (let index = head.first ?? 0; index < head.chunks; index++) {
			for (const message of (store.values.get(Keys.archiveChunk(scope, index)) as StoredMessage[] | undefined) ?? [])
				ids.set(message.id, (ids.get(message.id) ?? 0) + 1);
		}
		archived.set(scope, ids);
	}
	return archived;
}

/**
 * A Keyv store over a Map whose every write (`set`, `setMany`, `delete`, `deleteMany`) lands whole,
 * as one SQL statement does on SQLite, and which keeps the state after each: the states a process
 * killed between two writes leaves behind.
 */
export class SnapshotStore {
	public readonly states: RawRows[] = [];

	public constructor(public readonly data: RawRows = new Map()) {}

	public async get(key: string): Promise<string | undefined> {
		return this.data.get(key);
	}

	public async getMany(keys: string[]): Promise<(string | undefined)[]> {
		return keys.map((key) => this.data.get(key));
	}

	public async set(key: string, value: string): Promise<boolean> {
		this.data.set(key, value);
		this.snapshot();
		return true;
	}

	public async setMany(entries: { key: string; value: string }[]): Promise<boolean[]> {
		for (const { key, value } of entries) this.data.set(key, value);
		this.snapshot();
		return entries.map(() => true);
	}

	public async delete(key: string): Promise<boolean> {
		const had = this.data.delete(key);
		this.snapshot();
		return had;
	}

	public async deleteMany(keys: string[]): Promise<boolean> {
		for (const key of keys) this.data.delete(key);
		this.snapshot();
		return true;
	}

	public async has(key: string): Promise<boolean> {
		return this.data.has(key);
	}

	public async clear(): Promise<void> {
		this.data.clear();
	}

	/** The rows as `sqliteRows` gives them: keys without the namespace. */
	public static rows(state: RawRows, namespace = 'memory'): RawRows {
		return new Map([...state].map(([key, value]) => [key.startsWith(`${namespace}:`) ? key.slice(namespace.length + 1) : key, value]));
	}

	private snapshot(): void {
		this.states.push(new Map(this.data));
	}
}
