import type { StoredMessage } from '../../schemas';
import {
	AROUND_LENGTH,
	compareIds,
	type IndexColumns,
	LINE_TOKENS,
	NAME_LENGTH,
	rankOf,
	REPEATED_LINE_MAX_CHARS,
	type Speaker,
	SPEAKER,
	SPECIFIC,
	STRIDE,
	TERMS_START,
	TEXT_LENGTH,
	UNCOUNTED,
	WORD_MASK,
	wordMask
} from './columns';
import { grown, PostingBlocks } from './PostingBlocks';
import { AROUND_WINDOW, namesOrCounts } from './ranking';
import { analyse, lineWords, surroundingTokens, type TextAnalysis } from './terms';

/** What a message's id and text strings cost beyond their characters, with their slots in the index. */
const MESSAGE_BYTES = 72;
/** Up to this many speakers an index finds a message's by a scan, past it through a map. */
const SCANNED_SPEAKERS = 32;

/**
 * Appends one message to the index's columns: its id, text, time and speaker, its figures, its terms (scanned
 * pairs, or postings past the index's scanned size) and the surroundings of the messages around it. `recent`
 * holds the raw tokens of the messages before it whose surroundings are not complete yet; this one's are added. `text` is
 * the analysis of its text, when it was read beforehand (see ScopeIndex.add).
 */
export function appendMessage(
	index: IndexColumns,
	message: StoredMessage,
	recent: Set<string>[],
	text: TextAnalysis = analyse(message.text, 0)
): void {
	const at = index.ids.length;
	index.ids.push(message.id);
	index.texts.push(message.text);
	if (at > 0 && message.ts < index.times[at - 1]!) index.timesInOrder = false;
	index.times.push(message.ts);
	if (index.order) fileId(index, at);
	index.messageBytes += MESSAGE_BYTES + message.id.length + message.text.length;
	index.stats = grown(index.stats, STRIDE * (at + 1));
	const { stats } = index;
	const base = STRIDE * at;
	const speaker = speakerNumber(index, message);
	stats[base + SPEAKER] = speaker;
	index.aliases.learn(message.text, index.speakers[speaker]!, addresseeOf(index, at, speaker));
	// Counted when a context first weighs the message (see ScopeIndex.lineTokensAt): an archive loaded whole, or a turn of
	// fifty long messages, would otherwise make one call encode every message's words at once.
	stats[base + LINE_TOKENS] = UNCOUNTED;

	const { tokens, terms } = text;
	const name = message.authorName ? analyse(message.authorName, 1) : null;
	stats[base + TEXT_LENGTH] = tokens.size;
	stats[base + SPECIFIC] = namesOrCounts(message.text) ? 1 : 0;
	// Only a short line is compared with others (context/RepeatedLines.ts): a long one's words are not read twice.
	stats[base + WORD_MASK] = message.text.length <= REPEATED_LINE_MAX_CHARS ? wordMask(lineWords(tokens)) : 0;
	index.textTotal += tokens.size;
	stats[base + NAME_LENGTH] = name?.tokens.size ?? 0;
	index.nameTotal += name?.tokens.size ?? 0;
	if (index.terms) {
		stats[base + TERMS_START] = index.termsUsed;
		index.terms = grown(index.terms, index.termsUsed + 2 * (terms.size + (name?.terms.size ?? 0)));
		for (const [key, count] of terms) storeTerm(index, key, count);
		if (name) for (const [key, count] of name.terms) storeTerm(index, key, count);
	} else {
		for (const [key, count] of terms) index.postings!.add(key, at, count);
		if (name) for (const [key, count] of name.terms) index.postings!.add(key, at, count);
	}

	// The surroundings of this message and of the few before it, which now have it as a neighbour.
	recent.push(tokens);
	if (recent.length > 2 * AROUND_WINDOW + 1) recent.shift();
	for (let other = Math.max(0, at - AROUND_WINDOW); other <= at; other++) {
		const slot = STRIDE * other + AROUND_LENGTH;
		index.aroundTotal -= stats[slot]!;
		stats[slot] = surroundingTokens(recent, other, at);
		index.aroundTotal += stats[slot]!;
	}
	if (index.terms && index.ids.length > index.scannedUpTo) invert(index);
}

/** How far back a message's addressee is looked for: the last one who spoke before its author. */
const ADDRESSEE_WINDOW = 10;

/** Who the message at `at` most likely answers: the speaker of the newest message before it by someone else. */
function addresseeOf(index: IndexColumns, at: number, speaker: number): Speaker | undefined {
	for (let before = at - 1; before >= Math.max(0, at - ADDRESSEE_WINDOW); before--) {
		const other = index.stats[STRIDE * before + SPEAKER]!;
		if (other !== speaker) return index.speakers[other];
	}
	return undefined;
}

function storeTerm(index: IndexColumns, key: number, count: number): void {
	index.terms![index.termsUsed++] = key;
	index.terms![index.termsUsed++] = count;
}

/** Files the newest place among the ids in order: at the end for an id above all others, as Discord's are. */
function fileId(index: IndexColumns, at: number): void {
	const order = grown(index.order!, at + 1);
	index.order = order;
	const id = index.ids[at]!;
	if (at === 0 || compareIds(index.ids[order[at - 1]!]!, id) < 0) {
		order[at] = at;
		return;
	}
	const rank = rankOf(index, id);
	order.copyWithin(rank + 1, rank, at);
	order[rank] = at;
}

/** Past the index's scanned size: postings by term replace the scanned terms, and the ids are put in order. */
function invert(index: IndexColumns): void {
	const postings = new PostingBlocks();
	const total = index.ids.length;
	for (let at = 0; at < total; at++) {
		const end = at + 1 < total ? index.stats[STRIDE * (at + 1) + TERMS_START]! : index.termsUsed;
		for (let pair = index.stats[STRIDE * at + TERMS_START]!; pair < end; pair += 2)
			postings.add(index.terms![pair]!, at, index.terms![pair + 1]!);
	}
	index.postings = postings;
	index.terms = null;
	index.termsUsed = 0;
	index.order = Int32Array.from(index.ids.keys()).sort((a, b) => compareIds(index.ids[a]!, index.ids[b]!));
}

function speakerKey({ role, authorId, authorName, personaId }: Speaker): string {
	return JSON.stringify([role, authorId ?? null, authorName ?? null, personaId ?? null]);
}

function speakerNumber(index: IndexColumns, message: StoredMessage): number {
	const { role, authorId, authorName, personaId } = message;
	if (index.speakerNumbers) {
		const key = speakerKey(message);
		let number = index.speakerNumbers.get(key);
		if (number === undefined) {
			number = index.speakers.push({ role, authorId, authorName, personaId }) - 1;
			index.speakerNumbers.set(key, number);
		}
		return number;
	}
	const found = index.speakers.findIndex(
		(speaker) => speaker.role === role && speaker.authorId === authorId && speaker.authorName === authorName && speaker.personaId === personaId
	);
	if (found >= 0) return found;
	const number = index.speakers.push({ role, authorId, authorName, personaId }) - 1;
	if (index.speakers.length > SCANNED_SPEAKERS) index.speakerNumbers = new Map(index.speakers.map((speaker, at) => [speakerKey(speaker), at]));
	return number;
}
