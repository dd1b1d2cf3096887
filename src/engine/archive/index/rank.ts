import type { MessageColumns } from './MessageColumns';
import { AROUND_BOOST, AROUND_WINDOW, AUTHOR_BOOST, bm25, idf } from './ranking';
import { kthLargest, readings, scratch } from './scratch';
import { AROUND_LENGTH, NAME_LENGTH, STRIDE, TEXT_LENGTH, type TermColumns } from './TermColumns';
import { termCounts, tokenize } from './terms';

/** A BM25 hit as its place in the index. */
export interface PlaceHit {
	at: number;
	score: number;
}

/**
 * The hits of `query` among an index's messages, best first, written at or after `since`. Each message is
 * scored on three fields: its own words, the words of the {@link AROUND_WINDOW} messages on each side (in a
 * chat, the answer to a question often sits one line away from the words that name its topic), and its
 * author's name. The surroundings are derived from the postings of the words themselves, so the index holds
 * each word of each message once. Queries score in scratch arrays shared by every index.
 */
export function rank(messages: MessageColumns, words: TermColumns, query: string, limit: number, since: number): PlaceHit[] {
	const total = messages.size;
	if (total === 0) return [];
	const keys = [...termCounts(tokenize(query), 0).keys()];
	if (keys.length === 0) return [];
	const terms = words.postingsOf(keys);
	if (terms.length === 0) return [];
	const { scores, matched, lastTerm, touched } = scratch(total);
	const postings = readings(0);
	const { stats } = words;
	let touchedCount = 0;
	const textAverage = words.textTotal / total;
	const aroundAverage = words.aroundTotal / total || 1;
	const nameAverage = words.nameTotal / total || 1;
	let term = 0;
	/** Adds one field's score of the current term to a message. */
	const score = (at: number, value: number) => {
		if (matched[at] === 0) touched[touchedCount++] = at;
		scores[at] = scores[at]! + value;
		if (lastTerm[at] !== term) {
			lastTerm[at] = term;
			matched[at] = matched[at]! + 1;
		}
	};
	for (const { ownStart, ownEnd, ownHeld, nameStart, nameEnd, nameHeld } of terms) {
		term++;
		if (ownHeld > 0) {
			const weight = idf(total, ownHeld);
			for (let index = ownStart; index < ownEnd; index += 2) {
				const at = postings[index]!;
				score(at, weight * bm25(postings[index + 1]!, stats[STRIDE * at + TEXT_LENGTH]!, textAverage));
			}
			scoreSurroundings(stats, postings, ownStart, ownEnd, total, aroundAverage, score);
		}
		if (nameHeld > 0) {
			const weight = AUTHOR_BOOST * idf(total, nameHeld);
			for (let index = nameStart; index < nameEnd; index += 2) {
				const at = postings[index]!;
				score(at, weight * bm25(postings[index + 1]!, stats[STRIDE * at + NAME_LENGTH]!, nameAverage));
			}
		}
	}
	// As MiniSearch ranks: a message matching more of the query's terms counts that many times.
	const { finals, picked } = scratch(total);
	for (let index = 0; index < touchedCount; index++) {
		const at = touched[index]!;
		finals[index] = messages.timeAt(at) >= since ? scores[at]! * matched[at]! : Number.NEGATIVE_INFINITY;
		scores[at] = 0;
		matched[at] = 0;
		lastTerm[at] = 0;
	}
	let floor = Number.NEGATIVE_INFINITY;
	if (touchedCount > limit) {
		picked.set(finals.subarray(0, touchedCount));
		floor = kthLargest(picked.subarray(0, touchedCount), limit);
	}
	const ranked: PlaceHit[] = [];
	for (let index = 0; index < touchedCount; index++) {
		const value = finals[index]!;
		if (value >= floor && value !== Number.NEGATIVE_INFINITY) ranked.push({ at: touched[index]!, score: value });
	}
	// Compared, not subtracted: a difference of scores is a new heap number for every comparison.
	ranked.sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : a.at - b.at));
	if (ranked.length > limit) ranked.length = limit;
	return ranked;
}

/**
 * The surroundings field of one term: each message within {@link AROUND_WINDOW} of a message holding
 * the term counts its occurrences there.
 */
function scoreSurroundings(
	stats: Int32Array,
	postings: Int32Array,
	start: number,
	end: number,
	total: number,
	averageLength: number,
	add: (at: number, value: number) => void
): void {
	const { around, near } = scratch(total);
	let nearCount = 0;
	for (let index = start; index < end; index += 2) {
		const at = postings[index]!;
		const count = postings[index + 1]!;
		for (let other = Math.max(0, at - AROUND_WINDOW); other <= Math.min(total - 1, at + AROUND_WINDOW); other++) {
			if (other === at) continue;
			if (around[other] === 0) near[nearCount++] = other;
			around[other] = around[other]! + count;
		}
	}
	const weight = AROUND_BOOST * idf(total, nearCount);
	for (let index = 0; index < nearCount; index++) {
		const at = near[index]!;
		add(at, weight * bm25(around[at]!, stats[STRIDE * at + AROUND_LENGTH]!, averageLength));
		around[at] = 0;
	}
}
