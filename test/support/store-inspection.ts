/**
 * The one place the tests know how the engine lays memory out in its store. Behaviour tests go through
 * MemoryEngine's public API (and the plugin through a real client); a test that must look at what the
 * store holds, or damage it, names the thing it looks at here (a conversation's short-term entry, the
 * archive of a scope, a member's author index, a directory, settings, long-term memory, a registry
 * bucket) and never a key. The raw rows (the SQLite file on a connection of its own, a server's
 * through keyv's iterator) and the whole-store checks (`checkStore`, `readThroughEngine`) live here too.
 *
 * The engine's own modules only, never the package root: shard and crash child processes load this
 * without discord.js.
 */
import { RecordStore } from '../../src/engine/records/RecordStore';
import { existsSync, readFileSync } from 'node:fs';
import { constants, inflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { Archive } from '../../src/engine/archive/Archive';
import { type MemoryConfig, resolveConfig } from '../../src/engine/config';
import { entryLifetimeMs } from '../../src/engine/ledger/entries';
import { LISTING_SLACK_MS } from '../../src/engine/ledger/ScopeDirectory';
import type { MemoryEngine } from '../../src/engine/MemoryEngine';
import type {
	ArchiveHead,
	AuthorListings,
	ChannelArchiveListings,
	ForgottenMessages,
	LeftMembers,
	Listings,
	PendingPurge,
	ServerSettings,
	ShortTermEntry,
	StoredMessage,
	StoredTopics,
	SweepLease,
	Tombstones,
	UserProfile,
	UserSettings
} from '../../src/engine/schemas';
import { ArchiveMarker } from '../../src/engine/schemas';
import { sqlitePath } from '../../src/engine/store/backends';
import { SCHEMA_VERSION } from '../../src/engine/store/envelope';
import { fnv1a } from '../../src/engine/format/fnv1a';
import { DM_SERVER_ID, Keys, parseScopeKey, scopeTag } from '../../src/engine/store/keys';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { OLD_REGISTRY_BUCKETS, Registry, type RegistryKind } from '../../src/engine/records/Registry';
import { isSetAdapter } from '../../src/engine/store/sets';
import type { Sealer } from '../../src/engine/store/Sealer';

const DAY = 86_400_000;

/** Where a store lives: its URL and the namespace its keys are under. */
export interface StoreLocation {
	storeUrl: string;
	namespace: string;
}

/** One conversation of one persona: the member, the channel, the server (null in a DM). */
export interface ConversationPlace {
	userId: string;
	serverId: string | null;
	channelId: string;
	personaId?: string | null;
}

// Scope keys ----------------------------------------------------------------------------------------

const personaSuffix = (personaId?: string | null) => (personaId ? `:${personaId}` : '');

/**
 * The key of a member's own conversation in a channel, `shortterm:user:<userId>:<channelId>[:<personaId>]`.
 * Stated here rather than taken from the engine: it is public (recordTurn returns it, the CLI prints it,
 * the README documents it), so the tests pin it.
 */
export function userScopeKey(userId: string, channelId: string, personaId?: string | null): string {
	return `shortterm:user:${userId}:${channelId}${personaSuffix(personaId)}`;
}

/** The key of a guild channel's shared conversation, `shortterm:server:<serverId>:<channelId>[:<personaId>]` (public, as above). */
export function serverScopeKey(serverId: string, channelId: string, personaId?: string | null): string {
	return `shortterm:server:${serverId}:${channelId}${personaSuffix(personaId)}`;
}

/** The scope contexts read for a conversation: the server scope in a guild, the user scope in a DM. */
export function liveScopeKey(where: ConversationPlace): string {
	return where.serverId === null
		? userScopeKey(where.userId, where.channelId, where.personaId)
		: serverScopeKey(where.serverId, where.channelId, where.personaId);
}

// Places --------------------------------------------------------------------------------------------

/** One key of the store, named by what it holds; `T` is what the engine keeps there. */
export class StorePlace<T> {
	public constructor(
		/** The key, without the namespace. */
		public readonly key: string,
		private readonly store: MemoryStore | null
	) {}

	/** The value as the engine reads it (its schema applied); undefined when there is none. */
	public read(): Promise<T | undefined> {
		return this.open().get<T>(this.key);
	}

	/** Writes `value` as the engine would (in its envelope), around the engine. */
	public write(value: T): Promise<void> {
		return this.open().set(this.key, value);
	}

	/** Writes the stored value with `changes` merged in; the value must be there. */
	public async patch(changes: Partial<T>): Promise<void> {
		const current = await this.read();
		if (current === undefined) throw new Error(`${this.key}: nothing stored to change`);
		await this.write({ ...current, ...changes });
	}

	/** What keyv holds under the key: the engine's envelope `{ v, d }`, unchecked. */
	public raw(): Promise<unknown> {
		return this.open().keyv.get(this.key);
	}

	/** Writes `value` under the key as it is, around the engine's envelope: what a bug, a hand edit or an older version leaves. */
	public async damage(value: unknown): Promise<void> {
		await this.open().keyv.set(this.key, value);
	}

	/**
	 * Writes `text` as the row itself, under keyv: what a damaged disk, a partial restore or a hand edit leaves
	 * (`'{not json'`), which keyv's own reading cannot parse.
	 */
	public async corrupt(text: string): Promise<void> {
		const store = this.open();
		const adapter = store.keyv.store as { set: (key: string, value: string) => Promise<unknown> };
		await adapter.set(`${store.keyv.namespace}:${this.key}`, text);
	}

	/** The key as the adapter holds it, under `namespace`. */
	public inNamespace(namespace = 'memory'): string {
		return `${namespace}:${this.key}`;
	}

	/** The raw row of this key among `rows` (see {@link rawRows}). */
	public rowIn(rows: readonly string[]): string | undefined {
		return rows.find((row) => row.split(' ')[0]!.endsWith(this.key));
	}

	private open(): MemoryStore {
		if (!this.store) throw new Error(`${this.key}: named without a store, it cannot be read or written`);
		return this.store;
	}
}

/** The archive of one live scope: its head, chunks, markers and tombstones. */
export class ScopeArchive {
	/** How many chunks the archive has, and the first one kept. */
	public readonly head: StorePlace<ArchiveHead>;
	/** Message id → time, for the messages erased from it. */
	public readonly tombstones: StorePlace<Tombstones>;

	public constructor(
		public readonly scopeKey: string,
		private readonly store: MemoryStore | null
	) {
		this.head = new StorePlace(Keys.archiveHead(scopeKey), store);
		this.tombstones = new StorePlace(Keys.archiveTombstones(scopeKey), store);
	}

	public chunk(index: number): StorePlace<StoredMessage[]> {
		return new StorePlace(Keys.archiveChunk(this.scopeKey, index), this.store);
	}

	/** The marker that says a message was archived here. */
	public marker(messageId: string): StorePlace<1> {
		return new StorePlace(Keys.archiveMarker(this.scopeKey, messageId), this.store);
	}

	/** Every message the archive stores, oldest first, read straight from the chunks its head names. */
	public messages(): Promise<StoredMessage[]> {
		if (!this.store) throw new Error(`${this.scopeKey}: named without a store, its archive cannot be read`);
		return new Archive(new RecordStore(this.store), { retentionMs: 30 * DAY }).read(this.scopeKey);
	}
}

/**
 * A second handle on the engine's store, to read and damage what it holds around the engine. Each
 * method names a place; the place reads, writes, patches, damages or gives its key.
 */
export class StoreInspection {
	public constructor(
		/** The second handle on the store; null for an inspection that only names places. */
		public readonly store: MemoryStore | null,
		/** Where the store lives; null when it is not known (names only, or a host's Keyv). */
		public readonly location: StoreLocation | null = null
	) {}

	/** A conversation's short-term entry, by its scope key (as recordTurn returns it). */
	public entry(scopeKey: string): StorePlace<ShortTermEntry> {
		return new StorePlace(scopeKey, this.store);
	}

	/** A member's own short-term entry of a channel (the user scope). */
	public userEntry(userId: string, channelId: string, personaId?: string | null): StorePlace<ShortTermEntry> {
		return this.entry(userScopeKey(userId, channelId, personaId));
	}

	/** A guild channel's shared short-term entry (the server scope). */
	public serverEntry(serverId: string, channelId: string, personaId?: string | null): StorePlace<ShortTermEntry> {
		return this.entry(serverScopeKey(serverId, channelId, personaId));
	}

	/** The archive of a live scope. */
	public archive(scopeKey: string): ScopeArchive {
		return new ScopeArchive(scopeKey, this.store);
	}

	/** The live scopes holding a member's messages, with their counts. */
	public authorIndex(authorId: string): StorePlace<AuthorListings> {
		return new StorePlace(Keys.authorIndex(authorId), this.store);
	}

	/** The scopes one member wrote, across servers and DMs. */
	public userDirectory(userId: string): StorePlace<Listings> {
		return new StorePlace(Keys.userIndex(userId), this.store);
	}

	/** The server-scope entries of one server. */
	public serverDirectory(serverId: string): StorePlace<Listings> {
		return new StorePlace(Keys.serverIndex(serverId), this.store);
	}

	/** The user-scope entries of one guild channel. */
	public channelDirectory(serverId: string, channelId: string): StorePlace<Listings> {
		return new StorePlace(Keys.channelIndex(serverId, channelId), this.store);
	}

	public userSettings(userId: string): StorePlace<UserSettings> {
		return new StorePlace(Keys.userSettings(userId), this.store);
	}

	public serverSettings(serverId: string): StorePlace<ServerSettings> {
		return new StorePlace(Keys.serverSettings(serverId), this.store);
	}

	/** A member's long-term profile. */
	public profile(userId: string): StorePlace<UserProfile> {
		return new StorePlace(Keys.profile(userId), this.store);
	}

	/** A member's long-term topic notes, by slug. */
	public topics(userId: string): StorePlace<StoredTopics> {
		return new StorePlace(Keys.topics(userId), this.store);
	}

	/** One bucket of a registry as the layout before sets kept it (id → 1), which the engine moves into the set. */
	public registryBucket(kind: RegistryKind, bucket: number): StorePlace<Record<string, 1>> {
		return new StorePlace(Keys.registryBucket(kind, bucket), this.store);
	}

	/** The bucket of the layout before sets that listed `id` among the ids of `kind`. */
	public registryBucketOf(kind: RegistryKind, id: string): StorePlace<Record<string, 1>> {
		return this.registryBucket(kind, (fnv1a(id) >>> 0) % OLD_REGISTRY_BUCKETS);
	}

	/** Every persona's archive of one channel (live scope key → when it was last listed). */
	public channelArchives(serverId: string | null, channelId: string): StorePlace<ChannelArchiveListings> {
		return new StorePlace(Keys.channelArchives(serverId ?? DM_SERVER_ID, channelId), this.store);
	}

	/** One message of a channel deleted on Discord (until when capture leaves it out). */
	public forgottenMessage(serverId: string | null, channelId: string, messageId: string): StorePlace<number> {
		return new StorePlace(Keys.forgottenMessage(serverId ?? DM_SERVER_ID, channelId, messageId), this.store);
	}

	/** The messages of one channel deleted on Discord, as one list (the layout before one record per message). */
	public forgottenList(serverId: string | null, channelId: string): StorePlace<ForgottenMessages> {
		return new StorePlace(Keys.forgotten(serverId ?? DM_SERVER_ID, channelId), this.store);
	}

	/** The members who left a server and were forgotten there. */
	public leftMembers(serverId: string): StorePlace<LeftMembers> {
		return new StorePlace(Keys.leftMembers(serverId), this.store);
	}

	/** A server purge waiting for its grace period. */
	public pendingPurge(serverId: string): StorePlace<PendingPurge> {
		return new StorePlace(Keys.serverPurge(serverId), this.store);
	}

	/** The value that tells whether the store is encrypted, and with which key. */
	public encryptionCheck(): StorePlace<{ sealed: true }> {
		return new StorePlace(Keys.sealCheck(), this.store);
	}

	/** Which process swept last, and when. */
	public sweepLease(): StorePlace<SweepLease> {
		return new StorePlace(Keys.sweepLease(), this.store);
	}

	/** Every id a registry lists, once (a member met in two servers is in both their sets), in the order of the walk. */
	public async registered(kind: RegistryKind): Promise<string[]> {
		return [...new Set(await new Registry(this.opened()).every(kind))];
	}

	/** Every raw row of the store, `key value` (see {@link rawRows}). */
	public rows(): Promise<string[]> {
		return rawRows(this.located());
	}

	/** The raw rows that mention `text`. */
	public rowsHolding(text: string): Promise<string[]> {
		return rowsHolding(this.located(), text);
	}

	/**
	 * Every stored key whose value mentions `text` (unsealed, when this inspection has the store's key): a scan of the
	 * whole namespace, for erasure checks.
	 */
	public async keysHolding(text: string): Promise<string[]> {
		const keys: string[] = [];
		for await (const [key, data] of this.opened().scan()) if (printable(data).includes(text)) keys.push(key);
		return keys;
	}

	/** Deletes every key of the namespace. */
	public async clear(): Promise<void> {
		await this.opened().keyv.clear();
	}

	public async close(): Promise<void> {
		await this.store?.close();
	}

	private opened(): MemoryStore {
		if (!this.store) throw new Error('this inspection only names places: it has no store');
		return this.store;
	}

	private located(): StoreLocation {
		if (!this.location) throw new Error('this inspection does not know where its store lives');
		return this.location;
	}

	/** Opens a second handle on the store at `location` (with the engine's `sealer`, for an encrypted store); `close()` closes it. */
	public static async open(location: StoreLocation, sealer?: Sealer | null): Promise<StoreInspection> {
		const { storeUrl, namespace } = location;
		return new StoreInspection(await MemoryStore.open({ storeUrl, namespace, sealer }), { storeUrl, namespace });
	}
}

/** Names places without a store: their keys, for expectations and for stores a test builds itself. */
export const layout = new StoreInspection(null);

// Raw keys ------------------------------------------------------------------------------------------

/** Whether a stored key (namespace included or not) is a member's author index. */
export function isAuthorIndexKey(key: string): boolean {
	return key.includes(Keys.authorIndex(''));
}

/** Whether a stored key is an archive's marker of an archived message. */
export function isArchiveMarkerKey(key: string): boolean {
	return MARKER_KEY.test(key);
}

/** A marker's key, with or without the namespace: `seen:<tag>:<id>`, or `archive:<scope>:seen:<id>` untagged. */
const MARKER_KEY = /(^|:)seen:/;

/** Whether a key (without the namespace) is a short-term entry. */
export function isShortTermKey(key: string): boolean {
	return key.startsWith('shortterm:');
}

/** Whether a raw row holds a marker of the message `messageId`, in any archive. */
export function holdsMarkerOf(messageId: string): (row: string) => boolean {
	const escaped = messageId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const key = new RegExp(`(^|:)seen:(?:[\\w-]{16}:)?${escaped}(?=\\s|$)`);
	return (row) => key.test(row);
}

/** The kind of a stored key, as the sweep's log counts rows: `archive <part>` for an archive's keys, else its first two parts. */
export function rowKind(storedKey: string, namespace = 'memory'): string {
	const parts = storedKey.replace(new RegExp(`^${namespace}:`), '').split(':');
	return parts[0] === 'archive'
		? `archive ${parts.find((part) => ['seen', 'chunk', 'head', 'tombstones'].includes(part))}`
		: parts.slice(0, 2).join(':');
}

/**
 * What may still be stored under a member's name after their erasure, as a pattern of stored keys
 * (namespace included): the users' and authors' registries, which list ids the sweep visits, their
 * settings, which keep the barrier that stops re-fetched history coming back, and their user directory.
 */
export function keysLeftAfterErasure(userId: string, namespace = 'memory'): RegExp {
	return new RegExp(`^${namespace}:(registry:(users|authors)(:server:[^:]+)?|settings:user:${userId}|index:user:${userId})$`);
}

// Raw rows ------------------------------------------------------------------------------------------

/** Every set of an SQLite file, one row per set: its key, and its members as a JSON array (`{"set":[…]}` with `asValue`). */
function sqliteSetRows(asValue: boolean): string {
	const members = asValue ? "json_object('set', json_group_array(member))" : 'json_group_array(member)';
	return `SELECT key, ${members} AS value FROM (SELECT key, member FROM keyv_sets ORDER BY key, member) GROUP BY key`;
}

/** Every set of a server store's namespace with its members, keys without the namespace (as keyv's iterator gives its keys). */
async function* serverSets(store: MemoryStore, namespace: string): AsyncGenerator<[string, string[]]> {
	const adapter = store.keyv.store as unknown;
	if (!isSetAdapter(adapter)) return;
	for await (const [key, members] of adapter.sets.iterate(namespace)) yield [key.replace(`${namespace}:`, ''), members];
}

/**
 * Every key and value the store holds, one `key value` line each, read around the engine: on a connection
 * of its own on an SQLite file, through a fresh MemoryStore on Redis and PostgreSQL. A set is one
 * line: its key, and its members as a JSON array.
 */
export async function rawRows({ storeUrl, namespace }: StoreLocation): Promise<string[]> {
	if (storeUrl.startsWith('sqlite://')) return sqliteTableRows(sqlitePath(storeUrl), false).map(({ key, value }) => `${key} ${value}`);
	const store = await MemoryStore.open({ storeUrl, namespace });
	try {
		const rows: string[] = [];
		for await (const [key, value] of store.keyv.iterator!(namespace)) rows.push(`${String(key)} ${printable(value)}`);
		for await (const [key, members] of serverSets(store, namespace)) rows.push(`${key} ${JSON.stringify(members)}`);
		return rows;
	} finally {
		await store.close();
	}
}

/** A row's value as JSON; a value nested too deep for `JSON.stringify` (a damaged row) holds no text worth finding. */
function printable(value: unknown): string {
	try {
		return JSON.stringify(value);
	} catch {
		return '[nested too deep to print]';
	}
}

/** The rows that mention `text`. */
export async function rowsHolding(location: StoreLocation, text: string): Promise<string[]> {
	return (await rawRows(location)).filter((row) => row.includes(text));
}

/**
 * The files of an SQLite store (the database, its write-ahead log and its shared-memory index) whose bytes hold `text`: as
 * it is, or inside a compressed value (see {@link compressedTexts}).
 */
export function sqliteFilesHolding(storeUrl: string, text: string): string[] {
	const path = sqlitePath(storeUrl);
	const needle = Buffer.from(text, 'utf8');
	return [path, `${path}-wal`, `${path}-shm`].filter((file) => {
		if (!existsSync(file)) return false;
		const bytes = readFileSync(file);
		return bytes.includes(needle) || compressedTexts(bytes).some((decoded) => decoded.includes(needle));
	});
}

/** A compressed value's text; one that does not inflate (a damaged row) as its bytes in hexadecimal, still searchable. */
function inflated(value: Buffer): string {
	try {
		return inflateSync(value).toString('utf8');
	} catch {
		return `uninflatable ${value.toString('hex')}`;
	}
}

/** The zlib header the store's compression writes (level 1: `78 01`), where a compressed value begins. */
const ZLIB_HEADER = Buffer.from([0x78, 0x01]);

/**
 * What every zlib stream found in `bytes` decodes to, as far as it decodes: the store writes a long value compressed
 * (src/engine/store/sqliteValues.ts), so deleted text in a stale page or a log frame would not show as it is. A value longer
 * than the rest of its page continues on an overflow page elsewhere in the file, which is not followed: the part on the
 * page where it begins is decoded (a thousand bytes at least, some three thousand characters of chat).
 */
export function compressedTexts(bytes: Buffer): Buffer[] {
	const found: Buffer[] = [];
	for (let at = bytes.indexOf(ZLIB_HEADER); at !== -1; at = bytes.indexOf(ZLIB_HEADER, at + 1)) {
		const decoded = longestDecoding(bytes.subarray(at, Math.min(bytes.length, at + 65_536)));
		if (decoded) found.push(decoded);
	}
	return found;
}

/**
 * What the longest prefix of `stream` that decodes without error decodes to (a stream cut where its page's part ends is
 * followed by other bytes), or null. Searched by halving: a prefix that decodes has only prefixes that decode.
 */
function longestDecoding(stream: Buffer): Buffer | null {
	const decode = (end: number) => {
		try {
			return inflateSync(stream.subarray(0, end), { finishFlush: constants.Z_SYNC_FLUSH });
		} catch {
			return null;
		}
	};
	const whole = decode(stream.length);
	if (whole) return whole;
	let [good, bad] = [2, stream.length];
	while (bad - good > 1) {
		const middle = Math.floor((good + bad) / 2);
		if (decode(middle)) good = middle;
		else bad = middle;
	}
	return decode(good);
}

/** The bytes of an SQLite store's files that exist: the database, and with `logs` its write-ahead log and shared-memory index. */
export function sqliteFileBytes(storeUrl: string, { database = true, logs = true } = {}): Map<string, Buffer> {
	const path = sqlitePath(storeUrl);
	const files = [...(database ? [path] : []), ...(logs ? [`${path}-wal`, `${path}-shm`] : [])];
	return new Map(files.filter((file) => existsSync(file)).map((file) => [file, readFileSync(file)]));
}

/**
 * Everything of a store that still holds `text`: its rows (on every backend) and, on SQLite, the bytes of
 * its files, where a page the database no longer uses may keep what a row held.
 */
export async function holdersOf(location: StoreLocation, text: string): Promise<string[]> {
	const rows = await rowsHolding(location, text);
	const files = location.storeUrl.startsWith('sqlite://') ? sqliteFilesHolding(location.storeUrl, text).map((file) => `file ${file}`) : [];
	return [...rows, ...files];
}

/** The keys of raw rows (see {@link rawRows}), without the namespace. */
export function keysOfRows(rows: readonly string[], namespace: string): string[] {
	return rows.map((row) => row.split(' ')[0]!.replace(`${namespace}:`, ''));
}

/** The rows whose key names what a sweep may delete (everything but settings and the sweep's own lease). */
export function sweepableRows(rows: readonly string[]): string[] {
	return rows.filter((row) => !/(^|:)(settings|sweep):/.test(row.split(' ')[0]!));
}

/** Every stored key and value of an SQLite file, `key` and `value` on two lines (a set's members as a JSON array), read in this process. */
export function sqliteFileRows(file: string): Promise<string[]> {
	return Promise.resolve(sqliteTableRows(file, false).map((row) => `${row.key}\n${row.value}`));
}

/**
 * Every row of an SQLite file, read on a connection of its own (around any engine): a value the store compressed (a BLOB, a
 * zlib stream: src/engine/store/sqliteValues.ts) inflated here, and each set as one row of its members.
 */
function sqliteTableRows(file: string, setsAsValues: boolean): { key: string; value: string }[] {
	const db = new Database(file, { readonly: true });
	try {
		const rows = db
			.prepare<[], { key: string; value: string | Buffer }>(`SELECT key, value FROM keyv UNION ALL ${sqliteSetRows(setsAsValues)}`)
			.all();
		return rows.map(({ key, value }) => ({ key, value: Buffer.isBuffer(value) ? inflated(value) : value }));
	} finally {
		db.close();
	}
}

/** Raw rows of a store: key (without the namespace) → the serialized value as the adapter holds it; a set's, `{"set":[…members]}`. */
export type RawRows = Map<string, string>;

/** Every row of an SQLite store file, read around any engine (see {@link sqliteTableRows}). */
export function sqliteRows(storeUrl: string, namespace = 'memory'): RawRows {
	const rows = sqliteTableRows(sqlitePath(storeUrl), true);
	return new Map(rows.map(({ key, value }) => [key.startsWith(`${namespace}:`) ? key.slice(namespace.length + 1) : key, value]));
}

/** Every live row of a store on any backend, around the engine: `sqliteRows` on a file, keyv's iterator on a server. */
export async function storeRows({ storeUrl, namespace }: StoreLocation): Promise<RawRows> {
	if (storeUrl.startsWith('sqlite://')) return sqliteRows(storeUrl, namespace);
	const store = await MemoryStore.open({ storeUrl, namespace });
	try {
		const rows: RawRows = new Map();
		for await (const [key, value] of store.keyv.iterator!(namespace)) rows.set(String(key), JSON.stringify({ value }));
		for await (const [key, members] of serverSets(store, namespace)) rows.set(key, JSON.stringify({ set: members }));
		return rows;
	} finally {
		await store.close();
	}
}

// Whole-store checks --------------------------------------------------------------------------------

/** What a store holds, decoded; rows that do not decode are listed in `problems`. */
export interface DecodedStore {
	values: Map<string, unknown>;
	/** Each set's members. */
	sets: Map<string, string[]>;
	problems: string[];
}

/** Decodes each row as keyv and the engine store it (`{ value: { v, d }, expires }`); rows past their keyv TTL are left out, as keyv does. */
export function decodeRows(rows: RawRows, now = Date.now()): DecodedStore {
	const values = new Map<string, unknown>();
	const sets = new Map<string, string[]>();
	const problems: string[] = [];
	for (const [key, raw] of rows) {
		let row: { value?: { v?: unknown; d?: unknown }; expires?: number | null; set?: string[] };
		try {
			row = JSON.parse(raw) as typeof row;
		} catch {
			problems.push(`${key}: does not parse`);
			continue;
		}
		if (Array.isArray(row.set)) {
			sets.set(key, row.set);
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
	return { values, sets, problems };
}

const TAGGED_MARKER_KEY = /^seen:([\w-]{16}):(.+)$/;
const ARCHIVE_KEY = /^archive:(shortterm:(?:user|server):[^:]+:[^:]+(?::[^:]+)?):(head|tombstones|chunk:(\d+)|seen:(.+))$/;

interface ArchiveKeys {
	head?: ArchiveHead;
	tombstones?: Tombstones;
	chunks: Map<number, StoredMessage[]>;
	markers: Set<string>;
	/** Markers of messages an edit took out (see ArchiveMarker). */
	editedAway: Set<string>;
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
 * Returns the problems found, empty when none. `config` gives the entries' lifetimes (the defaults
 * unless a test changed them).
 */
export function checkStore(store: DecodedStore, config: MemoryConfig = resolveConfig({}, {})): string[] {
	const { values } = store;
	const problems = [...store.problems];
	const archives = new Map<string, ArchiveKeys>();
	const archiveOf = (scope: string) =>
		archives.get(scope) ?? archives.set(scope, { chunks: new Map(), markers: new Set(), editedAway: new Set() }).get(scope)!;
	const registered = new Map<string, Set<string>>();
	// Every set of a kind: the one before partitions, each server's, each shard bucket's. A native set, or on a host's Keyv
	// the value that stands for it (member → 1).
	const registryKeys = [...store.sets.keys(), ...[...values.keys()].filter((key) => key.startsWith('registry:'))];
	for (const key of registryKeys) {
		const kind = /^registry:(\w+)(?::(?:server|bucket):[^:]+)?$/.exec(key)?.[1];
		if (!kind) continue;
		const ids = registered.get(kind) ?? new Set<string>();
		for (const id of [...(store.sets.get(key) ?? []), ...Object.keys((values.get(key) as Record<string, 1> | undefined) ?? {})]) ids.add(id);
		registered.set(kind, ids);
	}
	const entries = new Map<string, ShortTermEntry>();
	/** Tagged markers (`seen:<tag>:<id>`) by tag, given to their archive once every archive's scope is known. */
	const tagged = new Map<string, [id: string, value: unknown][]>();
	for (const [key, value] of values) {
		const marker = TAGGED_MARKER_KEY.exec(key);
		if (marker) {
			tagged.set(marker[1]!, [...(tagged.get(marker[1]!) ?? []), [marker[2]!, value]]);
			continue;
		}
		const archive = ARCHIVE_KEY.exec(key);
		if (archive) {
			const [, scope, part, chunk, marker] = archive;
			const keys = archiveOf(scope!);
			if (part === 'head') keys.head = value as ArchiveHead;
			else if (part === 'tombstones') keys.tombstones = value as Tombstones;
			else if (chunk === undefined) {
				keys.markers.add(marker!);
				if (value === ArchiveMarker.editedAway) keys.editedAway.add(marker!);
			} else keys.chunks.set(Number(chunk), value as StoredMessage[]);
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

	for (const [scope, keys] of archives) {
		for (const [id, value] of tagged.get(scopeTag(scope)) ?? []) {
			keys.markers.add(id);
			if (value === ArchiveMarker.editedAway) keys.editedAway.add(id);
		}
		tagged.delete(scopeTag(scope));
	}
	for (const [tag, markers] of tagged) problems.push(`seen:${tag}: ${markers.length} marker(s) of no archive`);

	/** Live scope → the members' messages it holds (entry and archive). */
	const held = new Map<string, StoredMessage[]>();
	for (const [scope, archive] of archives) {
		const messages: StoredMessage[] = [];
		const first = archive.head?.first ?? 0;
		const end = archive.head?.chunks ?? 0;
		for (let index = first; index < end; index++) {
			const chunk = archive.chunks.get(index);
			if (chunk) messages.push(...chunk);
			else problems.push(`${scope}: head names chunk ${index}, which is missing`);
		}
		for (const index of archive.chunks.keys())
			if (index < first || index >= end) problems.push(`${scope}: chunk ${index} lies outside its head (${first}..${end - 1})`);
		const ids = new Set<string>();
		for (const message of messages) {
			if (ids.has(message.id)) problems.push(`${scope}: message ${message.id} archived twice`);
			ids.add(message.id);
			if (!archive.markers.has(message.id)) problems.push(`${scope}: message ${message.id} archived without its marker`);
			if (archive.editedAway.has(message.id)) problems.push(`${scope}: message ${message.id} archived, its marker saying it was edited away`);
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
			if (!listing) {
				problems.push(`${key}: not listed in ${directory}`);
				continue;
			}
			const expiresAt = entry.lastUpdated + entryLifetimeMs(entry, config);
			// A steady conversation's listing is written ahead of time (see LISTING_SLACK_MS): it must cover the entry's whole life.
			if (listing.expiresAt < expiresAt) {
				problems.push(`${key}: listed in ${directory} until ${listing.expiresAt}, before the entry expires (${expiresAt})`);
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

	public get(key: string): Promise<string | undefined> {
		return Promise.resolve(this.data.get(key));
	}

	public getMany(keys: string[]): Promise<(string | undefined)[]> {
		return Promise.resolve(keys.map((key) => this.data.get(key)));
	}

	public set(key: string, value: string): Promise<boolean> {
		this.data.set(key, value);
		this.snapshot();
		return Promise.resolve(true);
	}

	public setMany(entries: { key: string; value: string }[]): Promise<boolean[]> {
		for (const { key, value } of entries) this.data.set(key, value);
		this.snapshot();
		return Promise.resolve(entries.map(() => true));
	}

	public delete(key: string): Promise<boolean> {
		const had = this.data.delete(key);
		this.snapshot();
		return Promise.resolve(had);
	}

	public deleteMany(keys: string[]): Promise<boolean> {
		for (const key of keys) this.data.delete(key);
		this.snapshot();
		return Promise.resolve(true);
	}

	public has(key: string): Promise<boolean> {
		return Promise.resolve(this.data.has(key));
	}

	public clear(): Promise<void> {
		this.data.clear();
		return Promise.resolve();
	}

	private snapshot(): void {
		this.states.push(new Map(this.data));
	}

	/** The rows as `sqliteRows` gives them: keys without the namespace. */
	public static rows(state: RawRows, namespace = 'memory'): RawRows {
		return new Map([...state].map(([key, value]) => [key.startsWith(`${namespace}:`) ? key.slice(namespace.length + 1) : key, value]));
	}
}

// Engine internals ----------------------------------------------------------------------------------

/**
 * Writes the author counts an engine holds in memory, as its timer does every ten minutes. No public
 * call does this but `close()`, which also ends the engine; shard tests need it while both run.
 */
export function flushAuthorCounts(engine: MemoryEngine): Promise<void> {
	return (engine as unknown as { parts: { ledger: { authors: { flush(): Promise<void> } } } }).parts.ledger.authors.flush();
}
