import { LRUCache } from 'lru-cache';
import type { ChannelArchives } from './ChannelArchives';
import { type RecordKey, type RecordSetChange, Records } from '../records/Records';
import type { Registry } from '../records/Registry';
import { serverOfLiveScope } from '../records/registryLayout';
import { IndexCache } from './IndexCache';
import { textChars } from './IndexSlices';
import { ReplyCalls } from '../ReplyCalls';
import type { ScopeIndex } from './ScopeIndex';
import type { RecordStore, RecordWrite } from '../records/RecordStore';
import { appendedMarkers, authorChunks, blocksArchiving, relatedMarkerIds } from './locations';
import { markerKeysToRead, markersRead } from './markerKeys';
import { type ArchiveHead, type StoredMessage } from '../schemas';

/** Messages per stored chunk: an append rewrites one chunk at most, whatever the archive's size. */
export const ARCHIVE_CHUNK_SIZE = 64;
/**
 * ...and characters of text a chunk takes more messages up to: 64 messages of chat take a few thousand, but 64 of 4,000
 * characters of CJK would be some 800 kB that every append to the chunk writes again.
 */
export const ARCHIVE_CHUNK_CHARS = 16_000;

/** `messages` in order, as chunks: each filled until it is full (see {@link ARCHIVE_CHUNK_SIZE}), the first starting as `start`. */
export function intoChunks(messages: readonly StoredMessage[], start: readonly StoredMessage[] = []): StoredMessage[][] {
	const chunks = [[...start]];
	let chars = textChars(start);
	for (const message of messages) {
		if (chunks.at(-1)!.length >= ARCHIVE_CHUNK_SIZE || chars >= ARCHIVE_CHUNK_CHARS) {
			chunks.push([]);
			chars = 0;
		}
		chunks.at(-1)!.push(message);
		chars += message.text.length;
	}
	return chunks;
}

/** Options of {@link Archive}. */
export interface ArchiveOptions {
	/** Where new archives are registered for the sweep. */
	registry?: Registry;
	/** Where archives are listed under their channel, for deletions on Discord. */
	channels?: ChannelArchives;
	/** How long the archive keeps each message (`MEMORY_ARCHIVE_RETENTION_DAYS`); 0 switches it off. */
	retentionMs: number;
	/** How long the backend keeps archive keys past retention, so the sweep always reads them before the backend drops them unseen. @default 0 */
	graceMs?: number;
	/** What the cached indexes may hold with their messages, in bytes (see {@link ScopeIndex.bytes} and {@link IndexCache}). @default 32 MiB */
	maxCachedBytes?: number;
	/** The calls its background indexing yields to. */
	replyCalls?: ReplyCalls;
}

/** How many chunks an archive holds; 0 for an empty or missing one. */
export function heldChunks(head: ArchiveHead | null | undefined): number {
	return head ? Math.max(0, head.chunks - (head.first ?? 0)) : 0;
}

/** Whether an archive is there and was begun before markers held locations (see ArchiveHead.located): the sweep locates it. */
export function isUnlocated(head: ArchiveHead | null | undefined): head is ArchiveHead {
	return head !== undefined && head !== null && head.located !== true;
}

/** The chunk keys a head names, oldest first. */
export function chunkKeys(scopeKey: string, head: ArchiveHead): RecordKey<StoredMessage[]>[] {
	const first = head.first ?? 0;
	return Array.from({ length: heldChunks(head) }, (_, offset) => Records.archiveChunk(scopeKey, first + offset));
}

/** The keys of the chunks among `chunks` that the head still holds, oldest first, each once. */
export function heldChunkKeys(scopeKey: string, head: ArchiveHead, chunks: readonly number[]): RecordKey<StoredMessage[]>[] {
	const first = head.first ?? 0;
	const held = [...new Set(chunks)].filter((chunk) => chunk >= first && chunk < head.chunks).sort((a, b) => a - b);
	return held.map((chunk) => Records.archiveChunk(scopeKey, chunk));
}

/** An append read and planned by {@link Archive.prepare}: the messages it stores, and the write. */
export interface PendingAppend {
	fresh: StoredMessage[];
	/** The chunk, markers and head to write, as one batch. */
	writes: RecordWrite[];
	/** The chunks each author's words went to (a located archive's), to add with the writes. */
	setAdds: RecordSetChange[];
	/** Lists the archive for the sweep: call it before the writes. */
	register: () => Promise<void>;
	/** Tells the archive the writes landed (its cached index and tail follow). */
	landed: () => void;
	/** `register`, the writes, `landed`: for a caller with nothing to write alongside. */
	commit: () => Promise<void>;
}

/**
 * Every captured message of a scope, kept for the retention period, deduplicated by id and searchable.
 * The archive is a head plus fixed-size chunks plus one marker per message, so appending costs
 * the same at 10 or 100,000 messages.
 */
export class Archive {
	/** How long the archive keeps each message; 0 while it is off. */
	public readonly retentionMs: number;
	/** How long the backend keeps an archive key: retention, and the grace the sweep needs. */
	public readonly keyTtlMs: number;

	private readonly indexes: IndexCache;
	/** The chunk each recent append ended with, and the head it made: the next append there need not read it. */
	private readonly tails = new LRUCache<string, { head: ArchiveHead; chunk: readonly StoredMessage[] }>({ max: 256 });
	private readonly registry: Registry | undefined;
	private readonly channels: ChannelArchives | undefined;

	public constructor(
		public readonly store: RecordStore,
		options: ArchiveOptions
	) {
		this.indexes = new IndexCache(store, options.maxCachedBytes ?? 32 * 2 ** 20, options.replyCalls ?? new ReplyCalls());
		this.registry = options.registry;
		this.channels = options.channels;
		this.retentionMs = Math.max(options.retentionMs, 0);
		this.keyTtlMs = this.retentionMs + (options.graceMs ?? 0);
	}

	/** True when the archive is switched off (`MEMORY_ARCHIVE_RETENTION_DAYS=0`). */
	public get disabled(): boolean {
		return this.retentionMs === 0;
	}

	/**
	 * Appends the messages the archive has not seen; returns those it stored.
	 * Callers hold the scope's lock, so one scope is appended to by one call at a time.
	 */
	public async append(scopeKey: string, messages: readonly StoredMessage[], now: number): Promise<StoredMessage[]> {
		const pending = await this.prepare(scopeKey, messages, now);
		await pending.commit();
		return pending.fresh;
	}

	/**
	 * The keys {@link Archive.prepare} reads for `messages`: the head, then one marker per message.
	 * A caller may read them with its own keys in one round trip and pass the values to `prepare`.
	 */
	public keysToRead(scopeKey: string, messages: readonly StoredMessage[], now: number): RecordKey<unknown>[] {
		const unique = this.candidates(messages, now);
		return unique.length === 0 ? [] : [Records.archiveHead(scopeKey), ...markerKeysToRead(scopeKey, markerIds(unique))];
	}

	/**
	 * Reads what {@link Archive.append} needs and returns the messages it would store and the writes
	 * that store them, so that a caller can index them first and land the writes with its own in one
	 * batch, then call `landed()`. `read` holds the values of {@link Archive.keysToRead}'s keys when the
	 * caller read them; `leaveOut` names messages deleted on Discord, never stored. The caller holds the
	 * scope's head lock until the writes have landed.
	 */
	public async prepare(
		scopeKey: string,
		messages: readonly StoredMessage[],
		now: number,
		read?: readonly unknown[],
		leaveOut?: (message: StoredMessage) => boolean
	): Promise<PendingAppend> {
		const nothing: PendingAppend = {
			fresh: [],
			writes: [],
			setAdds: [],
			register: () => Promise.resolve(),
			landed: () => undefined,
			commit: () => Promise.resolve()
		};
		const unique = this.candidates(messages, now);
		if (unique.length === 0) return nothing;

		const headKey = Records.archiveHead(scopeKey);
		const ids = markerIds(unique);
		const values = read ?? (await this.store.getMany<unknown>([headKey, ...markerKeysToRead(scopeKey, ids)]));
		// A new head's epoch is the time, not 0, so it never matches an index cached from a deleted archive; it is located from its start.
		const [head = { chunks: 0, count: 0, epoch: now, located: true }, ...markerValues] = values as [ArchiveHead | undefined, ...unknown[]];
		const markers = markersRead(markerValues, ids.length);
		const stored = new Map(ids.map((id, index) => [id, markers[index]]));
		// A message an edit took out is archived again, with its new text (see ArchiveMarker).
		const fresh = unique.filter((message) => !blocksArchiving(stored.get(message.id)) && !leaveOut?.(message));
		if (fresh.length === 0) return nothing;

		const first = head.first ?? 0;
		const last = Math.max(first, head.chunks - 1);
		const chunk = head.chunks > first ? await this.tailChunk(scopeKey, head, last) : [];
		const ttlMs = this.keyTtlMs;
		const writes: RecordWrite[] = [];
		const chunks = intoChunks(fresh, chunk);
		chunks.forEach((value, offset) => {
			// A tail already full is left as it is.
			if (offset > 0 || value.length > chunk.length) writes.push({ key: Records.archiveChunk(scopeKey, last + offset), value, ttlMs });
		});
		const current = chunks.at(-1)!;
		const chunkIndex = last + chunks.length - 1;
		const chunkOf = new Map(chunks.flatMap((chunk, offset) => chunk.map((message) => [message.id, last + offset] as const)));
		for (const [id, marker] of appendedMarkers(fresh, (id) => chunkOf.get(id)!, stored))
			writes.push({ key: Records.archiveMarker(scopeKey, id), value: marker, ttlMs });
		const nextHead: ArchiveHead = { ...head, chunks: chunkIndex + 1, count: head.count + fresh.length, first };
		const setAdds = head.located === true ? authorChunks(scopeKey, fresh, (id) => chunkOf.get(id)!) : [];
		writes.push({ key: headKey, value: nextHead, ttlMs });

		// Before the data: the sweep removes an archive's id under the head lock the caller holds, and a process
		// killed after the write must not leave an archive the sweep never visits.
		const register = async () => {
			await this.registry?.note('archives', serverOfLiveScope(scopeKey), scopeKey);
			await this.channels?.note(scopeKey, now);
		};
		const landed = () => {
			this.tails.set(scopeKey, { head: nextHead, chunk: current });
			this.indexes.appended(scopeKey, head, nextHead, fresh);
		};
		const commit = async () => {
			await register();
			// One write: a marker never lands without its chunk and the head naming it, which would hide its message
			// from every later append. On SQLite, Redis and PostgreSQL a batch lands whole even if the process is killed.
			await this.store.setMany(writes, setAdds);
			landed();
		};
		return { fresh, writes, setAdds, register, landed, commit };
	}

	/**
	 * The searchable archive of a scope. `knownHead` (read alongside other keys) spares a round trip;
	 * a cached index is reused only while it matches the stored head. After a restart the index holds the newest
	 * messages first, the older ones joining it in the background (see {@link IndexCache}).
	 */
	public async open(scopeKey: string, knownHead?: ArchiveHead | null): Promise<ScopeIndex | null> {
		if (this.disabled) return null;
		const head = knownHead === undefined ? ((await this.store.get<ArchiveHead>(Records.archiveHead(scopeKey))) ?? null) : knownHead;
		if (!head || heldChunks(head) === 0) return null;
		return this.indexes.open(scopeKey, head);
	}

	/** Resolves once no archive's older messages are being indexed in the background (scripts, tests, the bench). */
	public indexingIdle(): Promise<void> {
		return this.indexes.idle();
	}

	/** Every message the scope's archive stores, oldest first, read straight from its chunks (not cached). */
	public async read(scopeKey: string): Promise<StoredMessage[]> {
		const [messages] = await this.readMany([scopeKey]);
		return messages!;
	}

	/** {@link read} of several archives, in two round trips whatever their number: their heads, then their chunks. */
	public async readMany(scopeKeys: readonly string[]): Promise<StoredMessage[][]> {
		const heads = await this.store.getMany<ArchiveHead>(scopeKeys.map((key) => Records.archiveHead(key)));
		const keysOf = scopeKeys.map((scopeKey, index) => (heads[index] ? chunkKeys(scopeKey, heads[index]) : []));
		const chunks = await this.store.getMany<StoredMessage[]>(keysOf.flat());
		let at = 0;
		return keysOf.map((keys) => chunks.slice(at, (at += keys.length)).flatMap((chunk) => chunk ?? []));
	}

	/** Drops what this process cached of one archive (its index and tail), after its messages were removed. */
	public forgetCached(scopeKey: string): void {
		this.indexes.forget(scopeKey);
		this.tails.delete(scopeKey);
	}

	/** Forgets every cached index (used on close). */
	public clearCache(): void {
		this.indexes.clear();
		this.tails.clear();
	}

	/** The messages an append may store: one per id, within retention; none while the archive is off. */
	private candidates(messages: readonly StoredMessage[], now: number): StoredMessage[] {
		if (this.disabled || messages.length === 0) return [];
		const retention = this.retentionMs;
		return [...new Map(messages.map((message) => [message.id, message])).values()].filter((message) => message.ts >= now - retention);
	}

	/** The chunk appended to, from memory when this process wrote it last (the head says so), else from the store. */
	private async tailChunk(scopeKey: string, head: ArchiveHead, last: number): Promise<readonly StoredMessage[]> {
		const tail = this.tails.get(scopeKey);
		if (
			tail &&
			tail.head.count === head.count &&
			tail.head.epoch === head.epoch &&
			tail.head.chunks === head.chunks &&
			(tail.head.first ?? 0) === (head.first ?? 0)
		)
			return tail.chunk;
		return (await this.store.get<StoredMessage[]>(Records.archiveChunk(scopeKey, last))) ?? [];
	}
}

/** The ids whose markers an append of `messages` reads: theirs, then those {@link appendedMarkers} changes besides. */
function markerIds(messages: readonly StoredMessage[]): string[] {
	return [...messages.map((message) => message.id), ...relatedMarkerIds(messages)];
}
