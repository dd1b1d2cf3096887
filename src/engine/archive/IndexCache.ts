import { LRUCache } from 'lru-cache';
import { performance } from 'node:perf_hooks';
import type { ArchiveHead, StoredMessage } from '../schemas';
import { Keys } from '../store/keys';
import type { MemoryStore } from '../store/MemoryStore';
import { ScopeIndex } from './ScopeIndex';

/** The newest chunks (512 messages) a context is served from while the rest of its archive's index loads. */
export const FIRST_CHUNKS = 8;
/** Chunks read in one call while an index loads. */
const CHUNKS_PER_READ = 4;
/** Messages indexed between two looks at the clock. */
const MESSAGES_PER_STEP = 16;
/** Indexing yields to the event loop this often, so a reply waiting behind it waits no longer. */
const SLICE_MS = 8;
/** The share of the cache one archive's index may take, so a huge channel never pushes every other one out. */
export const MAX_INDEX_SHARE = 0.5;
/** An index is loaded to this share of that: the rest is room for the messages appended later. */
const LOADED_SHARE = 0.75;

interface CachedIndex {
	head: ArchiveHead;
	index: ScopeIndex;
}

/** A first load in flight, and the messages appended meanwhile (the index takes them once loaded). */
interface FirstLoad {
	promise: Promise<ScopeIndex>;
	head: ArchiveHead;
	late: StoredMessage[];
}

/**
 * The archives' search indexes kept in memory, least recently used out, within a size in bytes. An index is
 * loaded newest first: a context after a restart is served at once from the newest {@link FIRST_CHUNKS} chunks,
 * while the older ones are indexed off the reply path, one archive at a time, in slices that yield to the event
 * loop; the complete index then takes the partial one's place. An archive larger than {@link MAX_INDEX_SHARE} of
 * the cache is indexed from its newest messages as far back as that share allows: a bounded newest part, never
 * rebuilt at every context. Every context compares the stored head with the cached one, so an index loaded across a
 * removal (whose head's epoch moved) is never served.
 */
export class IndexCache {
	private readonly cached: LRUCache<string, CachedIndex>;
	private readonly loading = new Map<string, FirstLoad>();
	/** The loads of older chunks, one after the other. */
	private background: Promise<void> = Promise.resolve();
	private readonly maxIndexBytes: number;

	public constructor(
		private readonly store: MemoryStore,
		maxBytes: number
	) {
		this.maxIndexBytes = Math.floor(maxBytes * MAX_INDEX_SHARE);
		this.cached = new LRUCache<string, CachedIndex>({
			maxSize: maxBytes,
			maxEntrySize: this.maxIndexBytes,
			sizeCalculation: (entry) => Math.max(1, entry.index.bytes)
		});
	}

	/** The index of an archive whose head is `head` (it holds chunks): cached, or loaded newest first. */
	public async open(scopeKey: string, head: ArchiveHead): Promise<ScopeIndex> {
		const cached = this.cached.get(scopeKey);
		if (cached && sameHead(cached.head, head)) return cached.index;
		// Contexts asking at once share one load.
		const loadKey = `${scopeKey} ${head.count} ${head.epoch}`;
		const inFlight = this.loading.get(loadKey);
		if (inFlight) return inFlight.promise;
		const load: FirstLoad = { promise: this.loadNewest(scopeKey, head, loadKey), head, late: [] };
		this.loading.set(loadKey, load);
		return load.promise;
	}

	/** Messages appended to an archive whose head was `head` and is now `next`: the cached index, or the one loading, takes them. */
	public appended(scopeKey: string, head: ArchiveHead, next: ArchiveHead, fresh: readonly StoredMessage[]): void {
		const cached = this.cached.get(scopeKey);
		if (cached && sameHead(cached.head, head)) {
			cached.index.add(fresh);
			cached.head = next;
			this.cached.set(scopeKey, cached);
			return;
		}
		if (cached) this.cached.delete(scopeKey);
		for (const [key, load] of this.loading) {
			if (!key.startsWith(`${scopeKey} `) || !sameHead(load.head, head)) continue;
			load.late.push(...fresh);
			load.head = next;
		}
	}

	/** Drops one archive's index, and any load of it (a load finds its index gone and stops). */
	public forget(scopeKey: string): void {
		this.cached.delete(scopeKey);
		for (const [key] of this.loading) if (key.startsWith(`${scopeKey} `)) this.loading.delete(key);
	}

	public clear(): void {
		this.cached.clear();
		this.loading.clear();
	}

	/** Resolves once no older chunks are being indexed or waiting to be (scripts, tests, the bench). */
	public async idle(): Promise<void> {
		let tail: Promise<void>;
		do {
			tail = this.background;
			await tail;
		} while (tail !== this.background);
	}

	/** Indexes the newest chunks, caches the index, and queues the older chunks' load. */
	private async loadNewest(scopeKey: string, head: ArchiveHead, loadKey: string): Promise<ScopeIndex> {
		const load = () => this.loading.get(loadKey);
		try {
			const first = head.first ?? 0;
			const from = Math.max(first, head.chunks - FIRST_CHUNKS);
			const index = new ScopeIndex();
			const slices = new Slices();
			for (const chunk of await this.store.getMany<StoredMessage[]>(chunkKeys(scopeKey, from, head.chunks))) {
				if (chunk) await slices.index(index, chunk);
			}
			const current = load();
			// Forgotten meanwhile (a removal, a close): served once, not kept.
			if (!current) return index;
			index.add(current.late);
			const entry: CachedIndex = { head: current.head, index };
			this.cached.set(scopeKey, entry);
			if (from > first) this.queue(() => this.loadOlder(scopeKey, entry, first, from));
			return index;
		} finally {
			this.loading.delete(loadKey);
		}
	}

	/**
	 * Indexes the chunks before `newestFrom` (as far back as the index may grow), then the partial index's messages, into a new
	 * index that takes the partial one's place; stops as soon as the cache no longer holds `entry` (a removal, a newer head).
	 */
	private async loadOlder(scopeKey: string, entry: CachedIndex, first: number, newestFrom: number, measured?: number): Promise<void> {
		const current = () => this.cached.peek(scopeKey) === entry;
		const partial = entry.index;
		// What a chunk takes in the index, from the newest chunks (with what was appended since). Past a few thousand messages the
		// terms take some half of what they take per message there (their posting blocks fill up: 0.40 to 0.52 of it, measured on
		// ordinary and varied chat); the messages' ids and texts take the same. Chunks close at 64 messages or 16,000 characters.
		const perChunk =
			measured ?? (partial.messageBytes + (partial.bytes - partial.messageBytes) * 0.5) / Math.max(1, entry.head.chunks - newestFrom);
		const from = Math.max(first, entry.head.chunks - Math.floor((this.maxIndexBytes * LOADED_SHARE) / perChunk));
		if (from >= newestFrom || !current()) return;
		const index = new ScopeIndex();
		const slices = new Slices();
		for (let at = from; at < newestFrom; at += CHUNKS_PER_READ) {
			await slices.yield();
			if (!current()) return;
			const chunks = await this.store.getMany<StoredMessage[]>(chunkKeys(scopeKey, at, Math.min(newestFrom, at + CHUNKS_PER_READ)));
			for (const chunk of chunks) if (chunk) await slices.index(index, chunk, current);
			if (!current()) return;
		}
		// The partial index's messages, with those appended to it meanwhile: the last step and the swap in one turn of the loop.
		let at = 0;
		while (at < entry.index.size) {
			if (!current()) return;
			const batch: StoredMessage[] = [];
			for (const end = Math.min(entry.index.size, at + MESSAGES_PER_STEP); at < end; at++) batch.push(entry.index.messageAt(at));
			index.add(batch);
			if (at < entry.index.size) await slices.pause();
		}
		if (!current()) return;
		// An estimate that erred (messages whose words no other holds): loaded again from fewer chunks, by what this load measured.
		if (index.bytes > this.maxIndexBytes) {
			if (measured === undefined)
				this.queue(() => this.loadOlder(scopeKey, entry, first, newestFrom, (1.1 * index.bytes) / (entry.head.chunks - from)));
			return;
		}
		entry.index = index;
		this.cached.set(scopeKey, entry);
	}

	private queue(task: () => Promise<void>): void {
		// A load that fails leaves the partial index served; the next removal or restart loads again.
		this.background = this.background.then(task).catch(() => undefined);
	}
}

/** Heads of the same archive state: the same messages appended, nothing removed since. */
function sameHead(a: ArchiveHead, b: ArchiveHead): boolean {
	return a.count === b.count && a.epoch === b.epoch;
}

function chunkKeys(scopeKey: string, from: number, to: number): string[] {
	return Array.from({ length: Math.max(0, to - from) }, (_, offset) => Keys.archiveChunk(scopeKey, from + offset));
}

/** Indexing in steps that yield to the event loop every {@link SLICE_MS}. */
class Slices {
	private since = performance.now();

	/** Adds `messages` to `index` a few at a time, yielding between slices; stops early once `going` says so. */
	public async index(index: ScopeIndex, messages: readonly StoredMessage[], going: () => boolean = () => true): Promise<void> {
		for (let at = 0; at < messages.length; at += MESSAGES_PER_STEP) {
			index.add(messages.slice(at, at + MESSAGES_PER_STEP));
			await this.pause();
			if (!going()) return;
		}
	}

	/** Yields when the slice's time is up. */
	public async pause(): Promise<void> {
		if (performance.now() - this.since >= SLICE_MS) await this.yield();
	}

	public async yield(): Promise<void> {
		await new Promise((resolve) => setImmediate(resolve));
		this.since = performance.now();
	}
}
