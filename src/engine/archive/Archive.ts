import { LRUCache } from 'lru-cache';
import { Keys } from '../store/keys';
import type { Registry } from '../store/Registry';
import { ScopeIndex } from './ScopeIndex';
import type { MemoryStore } from '../store/MemoryStore';
import type { StoredMessage } from '../schemas/types';

/** Messages per stored chunk: an append rewrites one chunk at most, whatever the archive's size. */
export const ARCHIVE_CHUNK_SIZE = 64;

/** The head of one scope's archive. */
export interface ArchiveHead {
	/** Number of chunks; the last one is the one appended to. */
	chunks: number;
	/** Messages appended over the archive's life. */
	count: number;
	/** Bumped when messages are removed, so every process drops its cached index. */
	epoch: number;
	/** The oldest chunk still stored: the sweep deletes expired chunks from the front. Absent (0) in heads written before the sweep. */
	first?: number;
}

/** `archive:<scope>:tombstones`: message id → time of the messages removed whose markers stay until the time is past retention. */
export type Tombstones = Record<string, number>;

/** What {@link Archive.expire} deleted. */
export interface ArchiveExpiry {
	chunks: number;
	messages: number;
	markers: number;
	/** The archive holds nothing any more and its head is gone. */
	emptied: boolean;
	/** Nothing of the scope is left (no head, no tombstones): it can leave the registry. */
	gone: boolean;
	/** The oldest message time of the oldest chunk kept (chunks are appended in time order, so nothing older is left); null when nothing is kept. */
	floor: number | null;
	/** Members' messages deleted, by author id. */
	authors: Record<string, number>;
}

/** Options of {@link Archive}. */
export interface ArchiveOptions {
	/** Where new archives are registered for the sweep. */
	registry?: Registry;
	/** How long the backend keeps archive keys past retention, so the sweep always reads them before the backend drops them unseen. @default () => 0 */
	graceMs?: () => number;
	/** What the cached indexes may hold with their messages, in bytes (see {@link ScopeIndex.bytes}). @default 32 MiB */
	maxCachedBytes?: number;
}

/** How many chunks an archive holds; 0 for an empty or missing one. */
export function heldChunks(head: ArchiveHead | null | undefined): number {
	return head ? Math.max(0, head.chunks - (head.first ?? 0)) : 0;
}

/** The chunk keys a head names, oldest first. */
function chunkKeys(scopeKey: string, head: ArchiveHead): string[] {
	const first = head.first ?? 0;
	return Array.from({ length: heldChunks(head) }, (_, offset) => Keys.archiveChunk(scopeKey, first + offset));
}

/** An append read and planned by {@link Archive.prepare}: the messages it stores, and the write. */
export interface PendingAppend {
	fresh: StoredMessage[];
	/** The chunk, markers and head to write, as one batch. */
	writes: { key: string; value: unknown; ttlMs: number }[];
	/** Lists the archive for the sweep: call it before the writes. */
	register: () => Promise<void>;
	/** Tells the archive the writes landed (its cached index and tail follow). */
	landed: () => void;
	/** `register`, the writes, `landed`: for a caller with nothing to write alongside. */
	commit: () => Promise<void>;
}

interface LoadedArchive {
	head: ArchiveHead;
	index: ScopeIndex;
}

/**
 * Every captured message of a scope, kept for the retention period, deduplicated by id and searchable.
 * The archive is a head plus fixed-size chunks plus one marker per message, so appending costs
 * the same at 10 or 100,000 messages.
 */
export class Archive {
	private readonly loaded: LRUCache<string, LoadedArchive>;
	/** The chunk each recent append ended with, and the head it made: the next append there need not read it. */
	private readonly tails = new LRUCache<string, { head: ArchiveHead; chunk: readonly StoredMessage[] }>({ max: 256 });
	/** Loads in flight, by scope and head. */
	private readonly loading = new Map<string, Promise<ScopeIndex>>();
	private readonly registry: Registry | undefined;
	private readonly graceMs: () => number;

	public constructor(
		private readonly store: MemoryStore,
		private readonly retentionMs: () => number,
		options: ArchiveOptions = {}
	) {
		this.loaded = new LRUCache<string, LoadedArchive>({
			maxSize: options.maxCachedBytes ?? 32 * 2 ** 20,
			sizeCalculation: (archive) => archive.index.bytes
		});
		this.registry = options.registry;
		this.graceMs = options.graceMs ?? (() => 0);
	}

	/** True when the archive is switched off (`MEMORY_ARCHIVE_RETENTION_DAYS=0`). */
	public get disabled(): boolean {
		return this.retentionMs() <= 0;
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
	public keysToRead(scopeKey: string, messages: readonly StoredMessage[], now: number): string[] {
		const unique = this.candidates(messages, now);
		return unique.length === 0 ? [] : [Keys.archiveHead(scopeKey), ...unique.map((message) => Keys.archiveMarker(scopeKey, message.id))];
	}

	/** The messages an append may store: one per id, within retention; none while the archive is off. */
	private candidates(messages: readonly StoredMessage[], now: number): StoredMessage[] {
		if (this.disabled || messages.length === 0) return [];
		const retention = this.retentionMs();
		return [...new Map(messages.map((message) => [message.id, message])).values()].filter((message) => message.ts >= now - retention);
	}

	/**
	 * Reads what {@link Archive.append} needs and returns the messages it would store and the writes
	 * that store them, so that a caller can index them first and land the writes with its own in one
	 * batch, then call `landed()`. `read` holds the values of {@link Archive.keysToRead}'s keys when the
	 * caller read them. The caller holds the scope's head lock until the writes have landed.
	 */
	public async prepare(scopeKey: string, messages: readonly StoredMessage[], now: number, read?: readonly unknown[]): Promise<PendingAppend> {
		const nothing: PendingAppend = {
			fresh: [],
			writes: [],
			register: async () => undefined,
			landed: () => undefined,
			commit: async () => undefined
		};
		const unique = this.candidates(messages, now);
		if (unique.length === 0) return nothing;

		const headKey = Keys.archiveHead(scopeKey);
		const values = read ?? (await this.store.getMany<unknown>([headKey, ...unique.map((message) => Keys.archiveMarker(scopeKey, message.id))]));
		// A new head's epoch is the time, not 0, so it never matches an index cached from a deleted archive.
		const [head = { chunks: 0, count: 0, epoch: now }, ...markers] = values as [ArchiveHead | undefined, ...unknown[]];
		const fresh = unique.filter((_, index) => markers[index] === undefined);
		if (fresh.length === 0) return nothing;

		const first = head.first ?? 0;
		const last = Math.max(first, head.chunks - 1);
		const chunk = head.chunks > first ? await this.tailChunk(scopeKey, head, last) : [];
		const ttlMs = this.retentionMs() + this.graceMs();
		const writes: { key: string; value: unknown; ttlMs: number }[] = [];
		let chunkIndex = last;
		let current = [...chunk];
		for (const message of fresh) {
			if (current.length >= ARCHIVE_CHUNK_SIZE) {
				writes.push({ key: Keys.archiveChunk(scopeKey, chunkIndex), value: current, ttlMs });
				chunkIndex++;
				current = [];
			}
			current.push(message);
		}
		writes.push({ key: Keys.archiveChunk(scopeKey, chunkIndex), value: current, ttlMs });
		for (const message of fresh) writes.push({ key: Keys.archiveMarker(scopeKey, message.id), value: 1, ttlMs });
		const nextHead: ArchiveHead = { chunks: chunkIndex + 1, count: head.count + fresh.length, epoch: head.epoch, first };
		writes.push({ key: headKey, value: nextHead, ttlMs });

		// Before the data: the sweep removes an archive's id under the head lock the caller holds, and a process
		// killed after the write must not leave an archive the sweep never visits.
		const register = async () => void (await this.registry?.note('archives', scopeKey));
		const landed = () => {
			this.tails.set(scopeKey, { head: nextHead, chunk: current });
			const cached = this.loaded.get(scopeKey);
			if (cached && cached.head.count === head.count && cached.head.epoch === head.epoch) {
				cached.index.add(fresh);
				cached.head = nextHead;
				this.loaded.set(scopeKey, cached);
			} else if (cached) {
				this.loaded.delete(scopeKey);
			}
		};
		const commit = async () => {
			await register();
			// One write: a marker never lands without its chunk and the head naming it, which would hide its message
			// from every later append. On SQLite, Redis and PostgreSQL a batch lands whole even if the process is killed.
			await this.store.setMany(writes);
			landed();
		};
		return { fresh, writes, register, landed, commit };
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
		return (await this.store.get<StoredMessage[]>(Keys.archiveChunk(scopeKey, last))) ?? [];
	}

	/**
	 * The searchable archive of a scope. `knownHead` (read alongside other keys) spares a round trip;
	 * a cached index is reused only while it matches the stored head.
	 */
	public async open(scopeKey: string, knownHead?: ArchiveHead | null): Promise<ScopeIndex | null> {
		if (this.disabled) return null;
		const head = knownHead === undefined ? ((await this.store.get<ArchiveHead>(Keys.archiveHead(scopeKey))) ?? null) : knownHead;
		if (!head || heldChunks(head) === 0) return null;
		const cached = this.loaded.get(scopeKey);
		if (cached && cached.head.count === head.count && cached.head.epoch === head.epoch) return cached.index;

		// Contexts built at once share one load: each building the same index would keep the CPU busy for seconds.
		const loadKey = `${scopeKey} ${head.count} ${head.epoch}`;
		const inFlight = this.loading.get(loadKey);
		if (inFlight) return inFlight;
		const load = (async () => {
			const chunks = await this.store.getMany<StoredMessage[]>(chunkKeys(scopeKey, head));
			const index = new ScopeIndex();
			for (const chunk of chunks) if (chunk) index.add(chunk);
			this.loaded.set(scopeKey, { head, index });
			return index;
		})().finally(() => this.loading.delete(loadKey));
		this.loading.set(loadKey, load);
		return load;
	}

	/** Every message the scope's archive stores, oldest first, read straight from its chunks (not cached). */
	public async read(scopeKey: string): Promise<StoredMessage[]> {
		const head = await this.store.get<ArchiveHead>(Keys.archiveHead(scopeKey));
		if (!head) return [];
		const chunks = await this.store.getMany<StoredMessage[]>(chunkKeys(scopeKey, head));
		return chunks.flatMap((chunk) => chunk ?? []);
	}

	/**
	 * Rewrites the scope's archive without the messages `remove` picks; returns how many went.
	 * The head's epoch moves so every process reloads its cached index, and the messages' markers
	 * stay as tombstones (listed for the sweep) so a later turn's history does not archive them again.
	 * Callers hold the scope's lock, as for {@link Archive.append}.
	 */
	public async remove(scopeKey: string, remove: (message: StoredMessage) => boolean): Promise<number> {
		const headKey = Keys.archiveHead(scopeKey);
		const head = await this.store.get<ArchiveHead>(headKey);
		if (!head) return 0;
		const keys = chunkKeys(scopeKey, head);
		const stored = (await this.store.getMany<StoredMessage[]>(keys)).flatMap((chunk) => chunk ?? []);
		const kept = stored.filter((message) => !remove(message));
		const gone = stored.filter((message) => remove(message));
		if (gone.length === 0) return 0;

		this.loaded.delete(scopeKey);
		this.tails.delete(scopeKey);
		const retention = this.retentionMs();
		const ttlMs = Math.max(retention, 0) + this.graceMs();
		await this.store.update<Tombstones>(Keys.archiveTombstones(scopeKey), (current) => ({
			value: { ...current, ...Object.fromEntries(gone.map((message) => [message.id, message.ts])) },
			ttlMs
		}));
		if (retention <= 0) {
			// While the archive is off nothing of it is served or cached: what is left goes too.
			await this.store.delete([headKey, ...keys]);
			return gone.length;
		}
		const first = head.first ?? 0;
		const chunks: StoredMessage[][] = [];
		for (let at = 0; at < kept.length; at += ARCHIVE_CHUNK_SIZE) chunks.push(kept.slice(at, at + ARCHIVE_CHUNK_SIZE));
		await this.store.setMany(chunks.map((chunk, index) => ({ key: keys[index]!, value: chunk, ttlMs })));
		await this.store.set(
			headKey,
			{ chunks: first + chunks.length, count: head.count, epoch: head.epoch + 1, first } satisfies ArchiveHead,
			ttlMs
		);
		await this.store.delete(keys.slice(chunks.length));
		return gone.length;
	}

	/**
	 * Deletes, from the front, every chunk whose newest message is older than `before`, with the
	 * markers of its messages, and the tombstoned markers older than `before`. An archive left with
	 * nothing loses its head. The head's epoch moves so every process reloads its cached index.
	 * Callers hold the scope's head lock, as for {@link Archive.append}.
	 */
	public async expire(scopeKey: string, before: number): Promise<ArchiveExpiry> {
		const headKey = Keys.archiveHead(scopeKey);
		const tombstonesKey = Keys.archiveTombstones(scopeKey);
		const [head, tombstones] = (await this.store.getMany<unknown>([headKey, tombstonesKey])) as [ArchiveHead?, Tombstones?];
		const expiry: ArchiveExpiry = { chunks: 0, messages: 0, markers: 0, emptied: false, gone: false, floor: null, authors: {} };
		const doomed: string[] = [];
		let first = head?.first ?? 0;
		const end = head?.chunks ?? 0;
		// Chunks are read a few at a time: most sweeps stop at the first one.
		scan: while (first < end) {
			const keys = Array.from({ length: Math.min(4, end - first) }, (_, offset) => Keys.archiveChunk(scopeKey, first + offset));
			for (const [index, chunk] of (await this.store.getMany<StoredMessage[]>(keys)).entries()) {
				if (chunk && chunk.length > 0 && Math.max(...chunk.map((message) => message.ts)) >= before) {
					expiry.floor = Math.min(...chunk.map((message) => message.ts));
					break scan;
				}
				doomed.push(keys[index]!, ...(chunk ?? []).map((message) => Keys.archiveMarker(scopeKey, message.id)));
				for (const message of chunk ?? [])
					if (message.role === 'user' && message.authorId) expiry.authors[message.authorId] = (expiry.authors[message.authorId] ?? 0) + 1;
				expiry.chunks++;
				expiry.messages += chunk?.length ?? 0;
				expiry.markers += chunk?.length ?? 0;
				first++;
			}
		}
		const left: Tombstones = {};
		for (const [id, ts] of Object.entries(tombstones ?? {})) {
			if (ts >= before) left[id] = ts;
			else doomed.push(Keys.archiveMarker(scopeKey, id));
		}
		const buried = Object.keys(tombstones ?? {}).length - Object.keys(left).length;
		expiry.markers += buried;
		if (!head && !tombstones) return { ...expiry, gone: true };
		if (doomed.length === 0 && !(head && first >= end)) return expiry;

		this.loaded.delete(scopeKey);
		this.tails.delete(scopeKey);
		// Past their retention the messages are served nowhere: deleting the chunks before the head cannot show a half archive.
		for (let at = 0; at < doomed.length; at += 500) await this.store.delete(doomed.slice(at, at + 500));
		const ttlMs = Math.max(this.retentionMs(), 0) + this.graceMs();
		const remaining = Object.keys(left).length;
		if (buried > 0) {
			if (remaining === 0) await this.store.delete([tombstonesKey]);
			else await this.store.set(tombstonesKey, left, ttlMs);
		}
		if (head && first >= end) {
			await this.store.delete([headKey]);
			expiry.emptied = true;
		} else if (head && expiry.chunks > 0) {
			await this.store.set(headKey, { ...head, first, epoch: head.epoch + 1 } satisfies ArchiveHead, ttlMs);
		}
		expiry.gone = (!head || expiry.emptied) && remaining === 0;
		return expiry;
	}

	/** Forgets every cached index (used on close). */
	public clearCache(): void {
		this.loaded.clear();
		this.tails.clear();
	}
}
