import { LRUCache } from 'lru-cache';
import type { ArchiveHead, StoredMessage } from '../schemas';
import { type RecordKey, Records } from '../records/Records';
import type { RecordStore } from '../records/RecordStore';
import type { ScopeIndex } from './ScopeIndex';
import { FIRST_CHUNKS, firstRead, indexFor, MAX_INDEX_SHARE, newestWithin, olderChunks, type Rebuild, trimmed } from './indexExtent';
import { Slices, STEP } from './IndexSlices';
import type { ReplyCalls } from '../ReplyCalls';

/** Chunks read in one call while an index loads. */
const CHUNKS_PER_READ = 4;
/** Background indexing waits for a moment no reply's call runs, this long at most (a bot never idle still gets it done). */
const MAX_BACKGROUND_WAIT_MS = 50;

interface CachedIndex {
	head: ArchiveHead;
	index: ScopeIndex;
	/** The oldest chunk the index holds. */
	from: number;
	/** Messages appended and not indexed yet, oldest first: a turn's text beyond one step waits for the background. */
	pending: StoredMessage[];
	/** Whether `pending` is queued for the background. */
	draining: boolean;
	/** Whether a smaller index is being built to replace one that grew past its share. */
	trimming: boolean;
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
 * rebuilt at every context; an index that appends grow past that share is replaced, in the background, by one of
 * the newest part again. Appended messages are indexed a step at a time: the first step at once, the rest in the
 * background (a turn of fifty 4,000-character messages would otherwise hold the event loop for a quarter of a
 * second), and a context first indexes one step of what its archive's index still waits for. Every context compares
 * the stored head with the cached one, so an index loaded across a removal (whose head's epoch moved) is never served.
 */
export class IndexCache {
	private readonly cached: LRUCache<string, CachedIndex>;
	private readonly loading = new Map<string, FirstLoad>();
	/** The loads of older chunks, the appends waiting and the trims, one after the other. */
	private background: Promise<void> = Promise.resolve();
	private readonly maxIndexBytes: number;

	public constructor(
		private readonly store: RecordStore,
		maxBytes: number,
		private readonly replyCalls: ReplyCalls
	) {
		this.maxIndexBytes = Math.floor(maxBytes * MAX_INDEX_SHARE);
		this.cached = new LRUCache<string, CachedIndex>({
			maxSize: maxBytes,
			// An index grown past its share counts as its share until its trim (queued as it grew) replaces it.
			sizeCalculation: (entry) => Math.max(1, Math.min(entry.index.bytes, this.maxIndexBytes))
		});
	}

	/** The index of an archive whose head is `head` (it holds chunks): cached, or loaded newest first. */
	public async open(scopeKey: string, head: ArchiveHead): Promise<ScopeIndex> {
		const cached = this.cached.get(scopeKey);
		if (cached && sameHead(cached.head, head)) {
			this.indexStep(scopeKey, cached);
			return cached.index;
		}
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
			cached.head = next;
			cached.pending.push(...fresh);
			this.indexStep(scopeKey, cached);
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

	/** Resolves once nothing is being indexed in the background or waiting to be (scripts, tests, the bench). */
	public async idle(): Promise<void> {
		let tail: Promise<void>;
		do {
			tail = this.background;
			await tail;
		} while (tail !== this.background);
	}

	/** Indexes one step of the messages `entry` waits for, queues the rest, and queues a trim once the index outgrew its share. */
	private indexStep(scopeKey: string, entry: CachedIndex): void {
		if (entry.pending.length === 0) return;
		entry.pending.splice(0, entry.index.add(entry.pending, STEP));
		this.cached.set(scopeKey, entry);
		if (entry.pending.length > 0 && !entry.draining) {
			entry.draining = true;
			this.queue(() => this.drain(scopeKey, entry));
		}
		if (entry.index.bytes > this.maxIndexBytes && !entry.trimming) {
			entry.trimming = true;
			this.queue(() => this.trim(scopeKey, entry));
		}
	}

	/** Indexes what `entry` waits for, a step at a time, yielding between slices. */
	private async drain(scopeKey: string, entry: CachedIndex): Promise<void> {
		const slices = this.backgroundSlices();
		try {
			// The first slice waits too: a drain is queued from within the recordTurn or buildContext that appended or opened.
			await slices.yield();
			while (entry.pending.length > 0 && this.cached.peek(scopeKey) === entry) {
				this.indexStep(scopeKey, entry);
				await slices.pause();
			}
		} finally {
			// A drain that failed leaves the rest to the next append or context, which queue another.
			entry.draining = false;
		}
	}

	/** Replaces an index grown past its share by one of the archive's newest part (see indexExtent's `trimmed`). */
	private async trim(scopeKey: string, entry: CachedIndex): Promise<void> {
		try {
			await this.rebuild(scopeKey, entry, trimmed(entry.head, entry.index, entry.from, this.maxIndexBytes));
		} finally {
			entry.trimming = false;
		}
	}

	/** Indexes the newest chunks (as far back as {@link firstRead} says), caches the index, and queues the older chunks' load. */
	private async loadNewest(scopeKey: string, head: ArchiveHead, loadKey: string): Promise<ScopeIndex> {
		const load = () => this.loading.get(loadKey);
		try {
			const first = head.first ?? 0;
			const read = firstRead(head);
			const chunks = await this.store.getMany<StoredMessage[]>(chunkKeys(scopeKey, read.from, head.chunks));
			// The newest chunks within the characters a first context waits for.
			const kept = newestWithin(chunks, read.chars);
			const from = head.chunks - kept;
			const index = indexFor(head);
			const slices = new Slices();
			for (const chunk of chunks.slice(-kept)) if (chunk) await slices.index(index, chunk);
			// The context that waits for it goes on in a turn of its own: its own work after the last slice's would be one block.
			await slices.yield();
			const current = load();
			// Forgotten meanwhile (a removal, a close): served once, not kept.
			if (!current) return index;
			const entry: CachedIndex = { head: current.head, index, from, pending: [...current.late], draining: false, trimming: false };
			this.cached.set(scopeKey, entry);
			this.indexStep(scopeKey, entry);
			if (from > first) {
				const older = olderChunks(head, first, from, index, this.maxIndexBytes);
				this.queue(() => this.rebuild(scopeKey, entry, older));
			}
			return index;
		} finally {
			this.loading.delete(loadKey);
		}
	}

	/**
	 * Builds a new index for `entry` (see {@link Rebuild}) that then takes the place of `entry`'s index. Stops as soon as
	 * the cache no longer holds `entry` (a removal, a newer head).
	 */
	private async rebuild(scopeKey: string, entry: CachedIndex, plan: Rebuild, measured = false): Promise<void> {
		const { first, upTo, copyFrom, perChunk, room } = plan;
		const current = () => this.cached.peek(scopeKey) === entry;
		const from = Math.max(first, entry.head.chunks - Math.floor(room / perChunk));
		if (!current() || from >= upTo) return;
		const index = indexFor(entry.head);
		const slices = this.backgroundSlices();
		for (let at = from; at < upTo; at += CHUNKS_PER_READ) {
			await slices.yield();
			if (!current()) return;
			const chunks = await this.store.getMany<StoredMessage[]>(chunkKeys(scopeKey, at, Math.min(upTo, at + CHUNKS_PER_READ)));
			for (const chunk of chunks) if (chunk) await slices.index(index, chunk, current);
			if (!current()) return;
		}
		// The current index's messages, with those appended to it meanwhile: the last step and the swap in one turn of the loop.
		let at = copyFrom;
		while (at < entry.index.size) {
			if (!current()) return;
			const next: StoredMessage[] = [];
			for (let place = at; place < Math.min(entry.index.size, at + STEP.messages); place++) next.push(entry.index.messageAt(place));
			at += index.add(next, STEP);
			if (at < entry.index.size) await slices.pause();
		}
		if (!current()) return;
		// An estimate that erred (messages whose words no other holds): built again from fewer chunks, by what this one measured.
		if (index.bytes > this.maxIndexBytes) {
			if (!measured) {
				const measuredPerChunk = (1.1 * index.bytes) / Math.max(1, entry.head.chunks - from);
				this.queue(() => this.rebuild(scopeKey, entry, { ...plan, perChunk: measuredPerChunk }, true));
			}
			return;
		}
		entry.index = index;
		entry.from = from;
		this.cached.set(scopeKey, entry);
	}

	/** Slices of background work, each started once no reply's call runs (or after {@link MAX_BACKGROUND_WAIT_MS}). */
	private backgroundSlices(): Slices {
		return new Slices(() => this.replyCalls.quiet(MAX_BACKGROUND_WAIT_MS));
	}

	private queue(task: () => Promise<void>): void {
		// A load that fails leaves the index it would replace served; the next removal or restart loads again.
		this.background = this.background.then(task).catch(() => undefined);
	}
}

/** Heads of the same archive state: the same messages appended, nothing removed since. */
function sameHead(a: ArchiveHead, b: ArchiveHead): boolean {
	return a.count === b.count && a.epoch === b.epoch;
}

function chunkKeys(scopeKey: string, from: number, to: number): RecordKey<StoredMessage[]>[] {
	return Array.from({ length: Math.max(0, to - from) }, (_, offset) => Records.archiveChunk(scopeKey, from + offset));
}
