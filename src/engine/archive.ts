import { LRUCache } from 'lru-cache';
import { Keys } from './keys';
import { ScopeIndex } from './search';
import type { MemoryStore } from './store';
import type { StoredMessage } from './types';

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

	public constructor(
		private readonly store: MemoryStore,
		private readonly retentionMs: () => number,
		maxCachedMessages = 250_000
	) {
		this.loaded = new LRUCache<string, LoadedArchive>({ maxSize: maxCachedMessages, sizeCalculation: (archive) => Math.max(1, archive.index.size) });
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
		if (this.disabled || messages.length === 0) return [];
		const retention = this.retentionMs();
		const unique = [...new Map(messages.map((message) => [message.id, message])).values()].filter((message) => message.ts >= now - retention);
		if (unique.length === 0) return [];

		const headKey = Keys.archiveHead(scopeKey);
		const markerKeys = unique.map((message) => Keys.archiveMarker(scopeKey, message.id));
		const [head = { chunks: 0, count: 0, epoch: 0 }, ...markers] = (await this.store.getMany<unknown>([headKey, ...markerKeys])) as [ArchiveHead | undefined, ...unknown[]];
		const fresh = unique.filter((_, index) => markers[index] === undefined);
		if (fresh.length === 0) return [];

		const last = head.chunks > 0 ? head.chunks - 1 : 0;
		const chunk = head.chunks > 0 ? ((await this.store.get<StoredMessage[]>(Keys.archiveChunk(scopeKey, last))) ?? []) : [];
		const writes: { key: string; value: unknown; ttlMs: number }[] = [];
		let chunkIndex = last;
		let current = chunk;
		for (const message of fresh) {
			if (current.length >= ARCHIVE_CHUNK_SIZE) {
				writes.push({ key: Keys.archiveChunk(scopeKey, chunkIndex), value: current, ttlMs: retention });
				chunkIndex++;
				current = [];
			}
			current.push(message);
		}
		writes.push({ key: Keys.archiveChunk(scopeKey, chunkIndex), value: current, ttlMs: retention });
		for (const message of fresh) writes.push({ key: Keys.archiveMarker(scopeKey, message.id), value: 1, ttlMs: retention });
		const nextHead: ArchiveHead = { chunks: chunkIndex + 1, count: head.count + fresh.length, epoch: head.epoch };
		// The head goes last: a crash before it leaves chunks a later append simply rewrites.
		await this.store.setMany(writes);
		await this.store.set(headKey, nextHead, retention);

		const cached = this.loaded.get(scopeKey);
		if (cached && cached.head.count === head.count && cached.head.epoch === head.epoch) {
			cached.index.add(fresh);
			cached.head = nextHead;
			this.loaded.set(scopeKey, cached);
		} else if (cached) {
			this.loaded.delete(scopeKey);
		}
		return fresh;
	}

	/**
	 * The searchable archive of a scope. `knownHead` (read alongside other keys) spares a round trip;
	 * a cached index is reused only while it matches the stored head.
	 */
	public async open(scopeKey: string, knownHead?: ArchiveHead | null): Promise<ScopeIndex | null> {
		if (this.disabled) return null;
		const head = knownHead === undefined ? ((await this.store.get<ArchiveHead>(Keys.archiveHead(scopeKey))) ?? null) : knownHead;
		if (!head || head.chunks === 0) return null;
		const cached = this.loaded.get(scopeKey);
		if (cached && cached.head.count === head.count && cached.head.epoch === head.epoch) return cached.index;

		const chunkKeys = Array.from({ length: head.chunks }, (_, chunk) => Keys.archiveChunk(scopeKey, chunk));
		const chunks = await this.store.getMany<StoredMessage[]>(chunkKeys);
		const index = new ScopeIndex();
		for (const chunk of chunks) if (chunk) index.add(chunk);
		this.loaded.set(scopeKey, { head, index });
		return index;
	}

	/** Every message the scope's archive stores, oldest first, read straight from its chunks (not cached). */
	public async read(scopeKey: string): Promise<StoredMessage[]> {
		const head = await this.store.get<ArchiveHead>(Keys.archiveHead(scopeKey));
		if (!head || head.chunks === 0) return [];
		const chunks = await this.store.getMany<StoredMessage[]>(Array.from({ length: head.chunks }, (_, chunk) => Keys.archiveChunk(scopeKey, chunk)));
		return chunks.flatMap((chunk) => chunk ?? []);
	}

	/**
	 * Rewrites the scope's archive without the messages `remove` picks; returns how many went.
	 * The head's epoch moves so every process reloads its cached index, and the messages' markers
	 * stay as tombstones so a later turn's history does not archive them again.
	 * Callers hold the scope's lock, as for {@link Archive.append}.
	 */
	public async remove(scopeKey: string, remove: (message: StoredMessage) => boolean): Promise<number> {
		const headKey = Keys.archiveHead(scopeKey);
		const head = await this.store.get<ArchiveHead>(headKey);
		if (!head || head.chunks === 0) return 0;
		const chunkKeys = Array.from({ length: head.chunks }, (_, chunk) => Keys.archiveChunk(scopeKey, chunk));
		const stored = (await this.store.getMany<StoredMessage[]>(chunkKeys)).flatMap((chunk) => chunk ?? []);
		const kept = stored.filter((message) => !remove(message));
		const removed = stored.length - kept.length;
		if (removed === 0) return 0;

		this.loaded.delete(scopeKey);
		const retention = this.retentionMs();
		if (retention <= 0) {
			// While the archive is off nothing of it is served or cached: what is left goes too.
			await this.store.delete([headKey, ...chunkKeys]);
			return removed;
		}
		const chunks: StoredMessage[][] = [];
		for (let at = 0; at < kept.length; at += ARCHIVE_CHUNK_SIZE) chunks.push(kept.slice(at, at + ARCHIVE_CHUNK_SIZE));
		await this.store.setMany(chunks.map((chunk, index) => ({ key: chunkKeys[index]!, value: chunk, ttlMs: retention })));
		// The head stays, even empty: a fresh head would restart at epoch 0 and could match a stale cache.
		await this.store.set(headKey, { chunks: chunks.length, count: head.count, epoch: head.epoch + 1 } satisfies ArchiveHead, retention);
		await this.store.delete(chunkKeys.slice(chunks.length));
		return removed;
	}

	/** Forgets every cached index (used on close). */
	public clearCache(): void {
		this.loaded.clear();
	}
}
