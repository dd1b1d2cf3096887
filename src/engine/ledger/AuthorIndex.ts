import { LRUCache } from 'lru-cache';
import { Records } from '../records/Records';
import { parseScopeKey } from '../records/scopes';
import type { Registry, RegistrySlice } from '../records/Registry';
import { serverOfLiveScope } from '../records/registryLayout';
import type { RecordStore } from '../records/RecordStore';
import type { AuthorListing, AuthorListings, StoredMessage } from '../schemas';
import { indexedAuthorsOf } from '../privacy/voices';

interface KnownScope {
	flushedAt: number;
	/** Archived messages counted here but not yet written. */
	pending: number;
	lastTs: number;
}

/** How long a known (author, scope) pair only counts in memory before its count is written again. */
export const AUTHOR_FLUSH_MS = 10 * 60_000;

/**
 * Lists, per author, the live scopes holding their messages, so that erasure, export and status find
 * them without scanning the store. A pair already written in the last {@link AUTHOR_FLUSH_MS} only
 * adds to an in-memory count, so a steady channel costs no extra reads or writes.
 */
export class AuthorIndex {
	private readonly known: LRUCache<string, Map<string, KnownScope>>;
	/** Set while counts wait in memory: they are written {@link AUTHOR_FLUSH_MS} after the first. */
	private flushTimer: NodeJS.Timeout | null = null;
	private stopped = false;

	public constructor(
		private readonly store: RecordStore,
		private readonly registry?: Registry,
		private readonly flushMs = AUTHOR_FLUSH_MS,
		maxAuthors = 20_000,
		/** Told when the timer's write of the counts fails (they are kept for the next). */
		private readonly onFlushError: (error: unknown) => void = () => undefined
	) {
		this.known = new LRUCache({ max: maxAuthors });
	}

	/**
	 * Notes that `landed` entered the live scope `scopeKey` and that its archive took in `archived`: members' messages (their
	 * counts: status's archived messages), and the persona's lines as the words of the member they answered (every line of a
	 * DM), uncounted, so the scope stays listed while the archive holds them (see indexedAuthorsOf).
	 */
	public async record(scopeKey: string, landed: readonly StoredMessage[], archived: readonly StoredMessage[], now: number): Promise<void> {
		const seen = new Map<string, { count: number; lastTs: number }>();
		const scope = parseScopeKey(scopeKey);
		const dmOwnerId = scope?.scope === 'user' ? scope.ownerId : null;
		const note = (message: StoredMessage, count: number) => {
			for (const authorId of indexedAuthorsOf(dmOwnerId, message)) {
				const current = seen.get(authorId) ?? { count: 0, lastTs: message.ts };
				const counted = message.role === 'user' ? count : 0;
				seen.set(authorId, { count: current.count + counted, lastTs: Math.max(current.lastTs, message.ts) });
			}
		};
		for (const message of landed) note(message, 0);
		for (const message of archived) note(message, 1);

		const writes: Promise<void>[] = [];
		for (const [authorId, { count, lastTs }] of seen) {
			let scopes = this.known.get(authorId);
			if (!scopes) this.known.set(authorId, (scopes = new Map()));
			const state = scopes.get(scopeKey);
			if (state && now - state.flushedAt < this.flushMs) {
				state.pending += count;
				state.lastTs = Math.max(state.lastTs, lastTs);
				if (count > 0) this.scheduleFlush();
				continue;
			}
			const carried = state?.pending ?? 0;
			const known = scopes;
			known.set(scopeKey, { flushedAt: now, pending: 0, lastTs });
			writes.push(
				this.add(authorId, { [scopeKey]: { count: count + carried, lastTs: Math.max(lastTs, state?.lastTs ?? lastTs) } }).catch(
					(error: unknown) => {
						// Unwritten: the next sighting must write it.
						known.delete(scopeKey);
						throw error;
					}
				)
			);
		}
		await Promise.all(writes);
	}

	/**
	 * Writes the author's listing of `scopeKeys` now, whatever this process remembers having written: an erasure run
	 * by another process may have removed it since (see capture/erasuresElsewhere.ts). Counts held here stay held.
	 */
	public async confirm(authorId: string, scopeKeys: readonly string[], lastTs: number, now: number): Promise<void> {
		const scopes = this.known.peek(authorId);
		for (const scopeKey of scopeKeys) {
			const state = scopes?.get(scopeKey);
			if (state) state.flushedAt = now;
		}
		await this.add(authorId, Object.fromEntries(scopeKeys.map((scopeKey) => [scopeKey, { count: 0, lastTs }])));
	}

	/** The author's listings, with what this process counted but has not written yet. */
	public async listings(authorId: string): Promise<AuthorListings> {
		const listings = { ...(await this.store.get<AuthorListings>(Records.authors(authorId))) };
		for (const [scopeKey, state] of this.known.peek(authorId) ?? []) {
			if (state.pending === 0) continue;
			const stored = listings[scopeKey];
			listings[scopeKey] = { count: (stored?.count ?? 0) + state.pending, lastTs: Math.max(stored?.lastTs ?? state.lastTs, state.lastTs) };
		}
		return listings;
	}

	/** Forgets the author in `scopeKeys` (their messages there were erased); the key goes when empty. */
	public async remove(authorId: string, scopeKeys: readonly string[]): Promise<void> {
		await this.removeMany(new Map([[authorId, scopeKeys]]));
	}

	/** {@link remove} for several authors, their indexes rewritten together. */
	public async removeMany(byAuthor: ReadonlyMap<string, readonly string[]>): Promise<void> {
		const keyOf = new Map([...byAuthor.keys()].map((authorId) => [Records.authors(authorId), authorId]));
		for (const [authorId, scopeKeys] of byAuthor) {
			const known = this.known.peek(authorId);
			for (const scopeKey of scopeKeys) known?.delete(scopeKey);
		}
		// A count read back after this must not come back.
		await Promise.all([...keyOf.keys()].map((key) => this.store.settled(key)));
		await this.store.updateMany<AuthorListings>([...keyOf.keys()], (key, current) => {
			if (!current) return null;
			const next = { ...current };
			for (const scopeKey of byAuthor.get(keyOf.get(key)!)!) delete next[scopeKey];
			return Object.keys(next).length === 0 ? 'delete' : { value: next };
		});
	}

	/**
	 * The sweep's pass over one author: `change` gets each stored listing (with what this process
	 * counted since, so an author seen recently here is never taken for gone) and returns it as it
	 * should be, or null to drop it. The key, and the author's registry id (from `registeredIn`, the set
	 * the sweep found it in), go when nothing is left.
	 */
	public async prune(
		authorId: string,
		registeredIn: RegistrySlice['partition'],
		change: (scopeKey: string, listing: AuthorListing) => AuthorListing | null
	): Promise<{ listings: number; indexDeleted: boolean }> {
		const key = Records.authors(authorId);
		await this.store.settled(key);
		// By hand rather than through update(): the registry must change while the key's lock is held.
		return this.store.locked([key], async () => {
			const stored = await this.store.get<AuthorListings>(key);
			const known = this.known.peek(authorId);
			const next: AuthorListings = {};
			let changed = false;
			for (const [scopeKey, listing] of Object.entries(stored ?? {})) {
				const state = known?.get(scopeKey);
				const seen = state ? { ...listing, lastTs: Math.max(listing.lastTs, state.lastTs) } : listing;
				const kept = change(scopeKey, seen);
				if (kept === seen) next[scopeKey] = listing;
				else if (kept) next[scopeKey] = kept;
				else known?.delete(scopeKey);
				changed ||= kept !== seen;
			}
			const listings = Object.keys(stored ?? {}).length - Object.keys(next).length;
			if (Object.keys(next).length > 0) {
				if (changed) await this.store.set(key, next);
				return { listings, indexDeleted: false };
			}
			if (stored) await this.store.delete([key]);
			await this.registry?.removeFrom([{ partition: registeredIn, ids: [authorId] }]);
			return { listings, indexDeleted: stored !== undefined };
		});
	}

	/**
	 * Writes every count still held in memory: on close, and from a timer {@link AUTHOR_FLUSH_MS} after
	 * a count was first held, so that another shard process's status, and a process killed, lag by that
	 * at most. The timer runs only while counts wait, and never keeps the process alive.
	 */
	public async flush(): Promise<void> {
		if (this.flushTimer) clearTimeout(this.flushTimer);
		this.flushTimer = null;
		const writes: Promise<void>[] = [];
		for (const [authorId, scopes] of this.known.entries()) {
			const changes: AuthorListings = {};
			for (const [scopeKey, state] of scopes) {
				if (state.pending === 0) continue;
				changes[scopeKey] = { count: state.pending, lastTs: state.lastTs };
				state.pending = 0;
			}
			if (Object.keys(changes).length === 0) continue;
			writes.push(
				this.add(authorId, changes).catch((error: unknown) => {
					// Unwritten: counted again, for the next flush.
					for (const [scopeKey, change] of Object.entries(changes)) {
						const state = scopes.get(scopeKey);
						if (state) state.pending += change.count;
					}
					this.scheduleFlush();
					throw error;
				})
			);
		}
		await Promise.all(writes);
	}

	/** Stops the timer (on close, after the last flush). */
	public stop(): void {
		this.stopped = true;
		if (this.flushTimer) clearTimeout(this.flushTimer);
		this.flushTimer = null;
	}

	private scheduleFlush(): void {
		if (this.stopped || this.flushTimer) return;
		this.flushTimer = setTimeout(() => {
			this.flushTimer = null;
			this.flush().catch(this.onFlushError);
		}, this.flushMs);
		this.flushTimer.unref();
	}

	private async add(authorId: string, changes: AuthorListings): Promise<void> {
		const key = Records.authors(authorId);
		const written: AuthorListings = {};
		// Before the write too (free once the id is known), so a process killed after it leaves no index the sweep never visits.
		await this.register(authorId, changes);
		await this.store.update<AuthorListings>(key, (current) => {
			const next = { ...current };
			for (const [scopeKey, change] of Object.entries(changes)) {
				const stored = next[scopeKey];
				const listing = {
					count: (stored?.count ?? 0) + change.count,
					lastTs: Math.max(stored?.lastTs ?? change.lastTs, change.lastTs)
				};
				written[scopeKey] = listing;
				next[scopeKey] = listing;
			}
			return { value: next };
		});
		// Every shard process the author talks through writes this key: read back until it holds what was written.
		// One process counts each scope, so a lower count read back is another process's stale copy, and the higher one is put back.
		const holds = (stored: AuthorListings | undefined) =>
			Object.entries(written).every(([scopeKey, listing]) => (stored?.[scopeKey]?.count ?? -1) >= listing.count);
		const repair = () =>
			this.store.update<AuthorListings>(key, (current) => {
				const next = { ...current };
				for (const [scopeKey, listing] of Object.entries(written)) {
					const stored = next[scopeKey];
					next[scopeKey] = {
						count: Math.max(stored?.count ?? 0, listing.count),
						lastTs: Math.max(stored?.lastTs ?? listing.lastTs, listing.lastTs)
					};
				}
				return { value: next };
			});
		void this.store.confirm(key, holds, repair);
		await this.register(authorId, changes);
	}

	/** Lists the author in the partition of each server whose scopes `changes` name: a member met in two servers is in both. */
	private async register(authorId: string, changes: AuthorListings): Promise<void> {
		const servers = new Set(Object.keys(changes).map(serverOfLiveScope));
		await Promise.all([...servers].map((serverId) => this.registry?.note('authors', serverId, authorId)));
	}
}
