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

	/** Forgets every cached index (used on close). */
	public clearCache(): void {
		this.loaded.clear();
	}
}
