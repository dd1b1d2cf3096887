import { LRUCache } from 'lru-cache';
import type { MemoryEngine, TopicListing } from '../engine';

/**
 * How long a member's topic list answers `/session forget`'s autocomplete before it is read again: a change made by
 * another process, or by the host through the engine directly, shows within this time.
 */
export const TOPIC_CHOICES_TTL_MS = 30_000;

/** Members whose lists are kept; the least recently used goes first. */
const MAX_MEMBERS = 5_000;

const lists = new WeakMap<MemoryEngine, LRUCache<string, TopicListing[]>>();

/**
 * The member's topics, for autocomplete: Discord sends one interaction per keystroke and waits 3 seconds for each, so the
 * list is read from the store once and kept for {@link TOPIC_CHOICES_TTL_MS} (one read at a time per member, however
 * fast they type).
 */
export async function topicChoices(memory: MemoryEngine, userId: string): Promise<TopicListing[]> {
	let cache = lists.get(memory);
	if (!cache) {
		cache = new LRUCache({ max: MAX_MEMBERS, ttl: TOPIC_CHOICES_TTL_MS, fetchMethod: (id: string) => memory.listTopics(id) });
		lists.set(memory, cache);
	}
	try {
		return (await cache.fetch(userId)) ?? [];
	} catch {
		// A change of the member's topics (topicsChanged) aborts a read under way: read them again, past the change.
		// A store that fails fails this read too.
		return memory.listTopics(userId);
	}
}

/** Tells the autocomplete that the member's topics changed here (forgotten, erased, saved): the next keystroke reads them again. */
export function topicsChanged(memory: MemoryEngine, userId: string): void {
	lists.get(memory)?.delete(userId);
}
