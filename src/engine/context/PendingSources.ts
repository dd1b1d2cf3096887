import type { SourceGroup } from '../schemas';

/** Whose context for which persona, and where: the conversation a turn answering with it names too. */
export interface SourcesOf {
	userId: string;
	serverId: string | null;
	channelId: string;
	personaId?: string | null;
}

/** What one context drew on, as a record keeps it (records/contextSourceRecords.ts), and when it was built. */
export interface BuiltSources {
	at: number;
	groups: SourceGroup[];
	/** Source ids past the record's bound. */
	omitted: number;
}

/**
 * Contexts waiting for their turn at once, at most: past it the oldest goes. A bot answers within seconds, so only contexts
 * no reply followed wait long; each holds at most 200 ids (some 5 KB), so this bounds them at some 10 MB.
 */
const MAX_WAITING = 2_000;
/** How long a context waits for the turn that answers with it: longer than any model takes to reply. */
const WAIT_MS = 15 * 60_000;

/**
 * What each context drew on, held in this process from `buildContext` until `recordTurn` stores it under the replies it
 * answered with (records/contextSourceRecords.ts): the newest context of each member, persona and channel. The process that
 * builds a context is the one that records its turn (a shard handles a channel's messages).
 */
export class PendingSources {
	private readonly waiting = new Map<string, BuiltSources>();

	public note(of: SourcesOf, sources: BuiltSources): void {
		const key = keyOf(of);
		this.waiting.delete(key);
		this.waiting.set(key, sources);
		if (this.waiting.size > MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value!);
	}

	/** The newest context of that conversation built within {@link WAIT_MS}, taken out; null when there is none. */
	public take(of: SourcesOf, now: number): BuiltSources | null {
		const key = keyOf(of);
		const sources = this.waiting.get(key);
		this.waiting.delete(key);
		return sources && now - sources.at <= WAIT_MS ? sources : null;
	}
}

function keyOf(of: SourcesOf): string {
	return JSON.stringify([of.userId, of.serverId, of.channelId, of.personaId ?? null]);
}
