import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { MemoryEngine, TopicListing } from '../engine';

/**
 * How long a member's list of what `/session forget` offers answers its autocomplete before it is read again: a change
 * made by another process, or by the host through the engine directly, shows within this time.
 */
export const FORGET_CHOICES_TTL_MS = 30_000;

/** Members whose lists are kept; the least recently used goes first. */
const MAX_MEMBERS = 5_000;

/** What a member may have `/session forget` delete: their topic notes, and the notes of their profile. */
export interface ForgetChoices {
	topics: TopicListing[];
	notes: string[];
}

const lists = new WeakMap<MemoryEngine, LRUCache<string, ForgetChoices>>();

async function read(memory: MemoryEngine, userId: string): Promise<ForgetChoices> {
	const [topics, profile] = await Promise.all([memory.listTopics(userId), memory.getProfile(userId)]);
	return { topics, notes: profile?.notes ?? [] };
}

/**
 * The member's topics and profile notes, for autocomplete: Discord sends one interaction per keystroke and waits 3 seconds
 * for each, so the list is read from the store once and kept for {@link FORGET_CHOICES_TTL_MS} (one read at a time per
 * member, however fast they type).
 */
export async function forgetChoices(memory: MemoryEngine, userId: string): Promise<ForgetChoices> {
	let cache = lists.get(memory);
	if (!cache) {
		cache = new LRUCache({ max: MAX_MEMBERS, ttl: FORGET_CHOICES_TTL_MS, fetchMethod: (id: string) => read(memory, id) });
		lists.set(memory, cache);
	}
	try {
		return (await cache.fetch(userId)) ?? { topics: [], notes: [] };
	} catch {
		// A change of the member's list (forgetChoicesChanged) aborts a read under way: read it again, past the change.
		// A store that fails fails this read too.
		return read(memory, userId);
	}
}

/** Tells the autocomplete that the member's topics or notes changed here (forgotten, erased, saved): the next keystroke reads them again. */
export function forgetChoicesChanged(memory: MemoryEngine, userId: string): void {
	lists.get(memory)?.delete(userId);
}

/**
 * The value `/session forget` offers for a profile note: `note:` and a hash of its text, since a choice's value holds at
 * most 100 characters and a note up to 500. A topic's slug never holds ":".
 */
export function noteChoiceValue(note: string): string {
	return `note:${createHash('sha256').update(note).digest('base64url').slice(0, 16)}`;
}
