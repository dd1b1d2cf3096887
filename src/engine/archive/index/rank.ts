import { AROUND_LENGTH, type IndexColumns, NAME_LENGTH, SPECIFIC, STRIDE, TERMS_START, TEXT_LENGTH } from './columns';
import {
	AROUND_BOOST,
	AROUND_WINDOW,
	AUTHOR_BOOST,
	bm25,
	COMMON_TERM_MAX_DOCS,
	COMMON_TERM_MIN_DOCS,
	COMMON_TERM_SHARE,
	DATE_BOOST,
	distinctiveTerms,
	idf,
	MAX_POSTINGS_READ,
	MAX_QUERY_WORDS,
	namesMainSpeaker,
	SPECIFIC_BOOST
} from './ranking';
import { kthLargest, readings, scratch } from './scratch';
import { termCounts, tokenize } from './terms';

/**
 * One query term's postings in its two fields, as ranges of the query's scratch (see {@link readings}), and how
 * many messages hold it in each.
 */
interface TermPostings {
	ownStart: number;
	ownEnd: number;
	ownHeld: number;
	nameStart: number;
	nameEnd: number;
	nameHeld: number;
}

/** A span of time a question asks about: from `from` (inclusive) to `to` (exclusive), in milliseconds since the epoch (UTC). */
export interface DateSpan {
	from: number;
	to: number;
}

/** A BM25 hit as its place in the index. */
export interface PlaceHit {
	at: number;
	score: number;
}

/**
 * The hits of `query` among an index's messages, best first, written at or after `since`. Each message is
 * scored on three fields: its own words, the words of the {@link AROUND_WINDOW} messages on each side (in a
 * chat, the answer to a question often sits one line away from the words that name its topic), and its
 * author's name (a main speaker's name scores on that field alone: {@link SPEAKER_NAME_SHARE}). The
 * surroundings are derived from the postings of the words themselves, so the index holds each word of each
 * message once. Queries score in scratch arrays shared by every index.
 */
export function rank(index: IndexColumns, query: string, limit: number, since: number, asked: DateSpan | null = null): PlaceHit[] {
	const total = index.ids.length;
	if (total === 0) return [];
	// A speaker's other name (`Kat` for `kat.jpg`) ranks as the display name it stands for.
	const keys: number[] = [
		...new Set(
			[...termCounts([...new Set(tokenize(query))].slice(0, MAX_QUERY_WORDS), 0).keys()].map((key) => index.aliases.nameKeyOf(key) ?? key)
		)
	];
	if (keys.length === 0) return [];
	const terms = postingsOf(index, keys);
	const dated = asked ? placesIn(index, asked, since) : [];
	if (terms.length === 0 && dated.length === 0) return [];
	const { scores, matched, lastTerm, touched } = scratch(total);
	const postings = readings(0);
	const { stats, times } = index;
	let touchedCount = 0;
	const textAverage = index.textTotal / total;
	const aroundAverage = index.aroundTotal / total || 1;
	const nameAverage = index.nameTotal / total || 1;
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
		if (ownHeld > 0 && !namesMainSpeaker(nameHeld, total)) {
			const weight = idf(total, ownHeld);
			for (let slot = ownStart; slot < ownEnd; slot += 2) {
				const at = postings[slot]!;
				score(at, weight * bm25(postings[slot + 1]!, stats[STRIDE * at + TEXT_LENGTH]!, textAverage));
			}
			scoreSurroundings(stats, postings, ownStart, ownEnd, total, aroundAverage, score);
		}
		if (nameHeld > 0) {
			const weight = AUTHOR_BOOST * idf(total, nameHeld);
			for (let slot = nameStart; slot < nameEnd; slot += 2) {
				const at = postings[slot]!;
				score(at, weight * bm25(postings[slot + 1]!, stats[STRIDE * at + NAME_LENGTH]!, nameAverage));
			}
		}
	}
	if (dated.length > 0) {
		// The day or span the question names is one more term, which every message written then holds.
		term++;
		const weight = DATE_BOOST * idf(total, dated.length);
		for (const at of dated) score(at, weight * bm25(1, stats[STRIDE * at + TEXT_LENGTH]!, textAverage));
	}
	// As MiniSearch ranks: a message matching more of the query's terms counts that many times; one naming something or
	// holding a number counts a little more (SPECIFIC_BOOST).
	const { finals, picked } = scratch(total);
	for (let slot = 0; slot < touchedCount; slot++) {
		const at = touched[slot]!;
		const specific = stats[STRIDE * at + SPECIFIC] === 1 ? 1 + SPECIFIC_BOOST : 1;
		finals[slot] = times[at]! >= since ? scores[at]! * matched[at]! * specific : Number.NEGATIVE_INFINITY;
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
	for (let slot = 0; slot < touchedCount; slot++) {
		const value = finals[slot]!;
		if (value >= floor && value !== Number.NEGATIVE_INFINITY) ranked.push({ at: touched[slot]!, score: value });
	}
	// Compared, not subtracted: a difference of scores is a new heap number for every comparison.
	ranked.sort((a, b) => (a.score > b.score ? -1 : a.score < b.score ? 1 : a.at - b.at));
	if (ranked.length > limit) ranked.length = limit;
	return ranked;
}

/** The places of the messages written within `span` (and since `since`), the newest {@link MAX_POSTINGS_READ} of them. */
function placesIn(index: IndexColumns, span: DateSpan, since: number): number[] {
	const places: number[] = [];
	const { times } = index;
	const from = Math.max(span.from, since);
	// In order (as messages are appended): from the last message before the span's end back to its start.
	let at = times.length - 1;
	if (index.timesInOrder) {
		let low = 0;
		let high = times.length;
		while (low < high) {
			const middle = (low + high) >> 1;
			if (times[middle]! < span.to) low = middle + 1;
			else high = middle;
		}
		at = low - 1;
	}
	for (; at >= 0 && places.length < MAX_POSTINGS_READ; at--) {
		const time = times[at]!;
		if (time >= from && time < span.to) places.push(at);
		else if (index.timesInOrder && time < from) break;
	}
	return places;
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

/**
 * The query's distinctive terms that the index knows (see {@link COMMON_TERM_SHARE}), with their postings copied
 * to the query's scratch: the newest {@link MAX_POSTINGS_READ} of each.
 */
function postingsOf(index: IndexColumns, keys: readonly number[]): TermPostings[] {
	const common = Math.min(COMMON_TERM_MAX_DOCS, Math.max(COMMON_TERM_MIN_DOCS, index.ids.length * COMMON_TERM_SHARE));
	const { postings } = index;
	const total = index.ids.length;
	if (!postings) return distinctiveTerms(scannedTerms(index, keys), common, total);
	// Counted first, so that the postings of a common term are never copied.
	const chosen = distinctiveTerms(
		keys.map((key) => ({ key, ownHeld: postings.held(key), nameHeld: postings.held(key | 1) })),
		common,
		total
	);
	let cursor = 0;
	return chosen.map(({ key, ownHeld, nameHeld }) => {
		const ownStart = cursor;
		// A main speaker's name ranks on the author field alone: its places in the text are not read.
		if (!namesMainSpeaker(nameHeld, total)) cursor = postings.read(key, MAX_POSTINGS_READ, cursor);
		const nameStart = cursor;
		cursor = nameHeld > 0 ? postings.read(key | 1, MAX_POSTINGS_READ, cursor) : cursor;
		return { ownStart, ownEnd: nameStart, ownHeld, nameStart, nameEnd: cursor, nameHeld };
	});
}

/** Every query term's postings, from a scan of each message's terms (below the index's scanned size). */
function scannedTerms(index: IndexColumns, keys: readonly number[]): TermPostings[] {
	const found = keys.map(() => ({ own: [] as number[], name: [] as number[] }));
	const slots = new Map<number, number>();
	keys.forEach((key, slot) => {
		slots.set(key, slot);
		slots.set(key | 1, slot);
	});
	const terms = index.terms!;
	const { stats } = index;
	const total = index.ids.length;
	for (let at = 0; at < total; at++) {
		const end = at + 1 < total ? stats[STRIDE * (at + 1) + TERMS_START]! : index.termsUsed;
		for (let pair = stats[STRIDE * at + TERMS_START]!; pair < end; pair += 2) {
			const key = terms[pair]!;
			const slot = slots.get(key);
			if (slot === undefined) continue;
			((key & 1) === 0 ? found[slot]!.own : found[slot]!.name).push(at, terms[pair + 1]!);
		}
	}
	// As from postings, a term's newest MAX_POSTINGS_READ only.
	let cursor = 0;
	const copy = (list: number[]) => {
		const kept = list.length > 2 * MAX_POSTINGS_READ ? list.slice(-2 * MAX_POSTINGS_READ) : list;
		readings(cursor + kept.length).set(kept, cursor);
		return (cursor += kept.length);
	};
	return found.map(({ own, name }) => {
		const ownStart = cursor;
		const ownEnd = copy(own);
		const nameStart = cursor;
		return { ownStart, ownEnd, ownHeld: own.length / 2, nameStart, nameEnd: copy(name), nameHeld: name.length / 2 };
	});
}
