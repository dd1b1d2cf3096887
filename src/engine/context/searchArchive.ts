import type { PlaceHit, ScopeIndex } from '../archive/ScopeIndex';
import { dateAsked } from './datesAsked';

/**
 * `, and what…`, `and where…`: where a question goes on to ask a second one. Each part is searched alone too, so that the
 * second question's answer, often told on another day in other words, is not outranked by the first's.
 */
const SECOND_QUESTION = /,?\s+and\s+(?=(?:what|where|when|who|whom|whose|which|how|why|did|does|do|is|was|were|has|have|had)\b)/i;

/**
 * The archive's hits for a question, best first: its own ranking (with the day or span it names, see {@link dateAsked}),
 * and for a question of two questions the ranking of each part too, their hits taken in turn (the whole's first, then
 * each part's first, then the whole's second…), each place once: `limit` of each ranking.
 */
export function searchArchive(index: ScopeIndex, query: string, limit: number, since: number, now: number): PlaceHit[] {
	const whole = index.rank(query, limit, since, dateAsked(query, now));
	// Only a question (a chat message that is none, "…and who cares", is searched once).
	if (!query.trimEnd().endsWith('?')) return whole;
	const parts = query.split(SECOND_QUESTION).filter((part) => part.trim().length > 0);
	if (parts.length < 2) return whole;
	const lists = [whole, ...parts.map((part) => index.rank(part, limit, since, dateAsked(part, now)))];
	const hits: PlaceHit[] = [];
	const taken = new Set<number>();
	for (let rank = 0; lists.some((list) => rank < list.length); rank++) {
		for (const list of lists) {
			const hit = list[rank];
			if (!hit || taken.has(hit.at)) continue;
			taken.add(hit.at);
			hits.push(hit);
		}
	}
	return hits;
}
