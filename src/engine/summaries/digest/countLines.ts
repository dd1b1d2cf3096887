import { LRUCache } from 'lru-cache';
import { fold, isNumeral, WORD } from './classify';
import { cut, flat } from './text';

// Count lines: `(3 other messages: Maya ×2, Sol; 4 short replies: ok ×2, lol, 👍)`.

/** Texts or speakers a count line names; the others are counted as `+n more`. */
const MAX_TALLY_ITEMS = 5;
/** Characters of one text or speaker a count line names. */
const MAX_ITEM_CHARS = 24;

export interface Tally {
	/** Label and count, in the order first seen. */
	items: [string, number][];
	/** Messages counted without a label (`+n more`). */
	more: number;
}

export interface Counts {
	/** Chatter, by speaker. */
	other: Tally;
	/** Noise, by text. */
	short: Tally;
}

const total = (tally: Tally) => tally.items.reduce((sum, [, count]) => sum + count, tally.more);

export function count(tally: Tally, label: string): void {
	const item = tally.items.find(([known]) => known === label);
	if (item) item[1]++;
	else tally.items.push([label, 1]);
}

function renderTally(tally: Tally): string {
	// Most frequent first; a sort is stable, so ties keep the order they were first seen in.
	const sorted = [...tally.items].sort((a, b) => b[1] - a[1]);
	const more = tally.more + sorted.slice(MAX_TALLY_ITEMS).reduce((sum, [, n]) => sum + n, 0);
	return [...sorted.slice(0, MAX_TALLY_ITEMS).map(([label, n]) => (n > 1 ? `${label} ×${n}` : label)), ...(more > 0 ? [`+${more} more`] : [])].join(
		', '
	);
}

export function renderCounts(counts: Counts): string {
	const parts: string[] = [];
	const others = total(counts.other);
	const shorts = total(counts.short);
	if (others > 0) parts.push(`${others} other message${others === 1 ? '' : 's'}: ${renderTally(counts.other)}`);
	if (shorts > 0) parts.push(`${shorts} short repl${shorts === 1 ? 'y' : 'ies'}: ${renderTally(counts.short)}`);
	return `(${parts.join('; ')})`;
}

const COUNT_LINE = /^\((.*)\)$/;
const COUNT_PART = /^(\d+) (other messages?|short repl(?:y|ies)): (.+)$/;
const COUNT_ITEM = /^(.*?)(?: ×(\d+))?$/;
const MORE_ITEM = /^\+(\d+) more$/;

/** The counts a count line shows; null when the text is not one (then it is never merged into). */
export function parseCounts(text: string): Counts | null {
	const line = COUNT_LINE.exec(text);
	if (!line) return null;
	const counts: Counts = { other: { items: [], more: 0 }, short: { items: [], more: 0 } };
	for (const part of line[1]!.split('; ')) {
		const parsed = COUNT_PART.exec(part);
		if (!parsed) return null;
		const tally = parsed[2]!.startsWith('other') ? counts.other : counts.short;
		for (const item of parsed[3]!.split(', ')) {
			const more = MORE_ITEM.exec(item);
			if (more) tally.more += Number(more[1]);
			else tally.items.push([COUNT_ITEM.exec(item)![1]!, Number(COUNT_ITEM.exec(item)![2] ?? 1)]);
		}
		if (total(tally) !== Number(parsed[1])) return null;
	}
	return counts;
}

/**
 * Characters of a noise message its label is made from: the label shows 24 at most (what repeats or is a number is left
 * out first), and a message may hold 4,000. Labelling 128 took 0.5 ms a turn of fifty messages of emoji.
 */
const LABEL_SOURCE_CHARS = 64;

/** The beginning of `text` a label is made from, never ending inside a surrogate pair. */
function labelHead(text: string): string {
	if (text.length <= LABEL_SOURCE_CHARS) return text;
	const end = /[\uD800-\uDBFF]/.test(text[LABEL_SOURCE_CHARS - 1]!) ? LABEL_SOURCE_CHARS - 1 : LABEL_SOURCE_CHARS;
	return text.slice(0, end);
}

/**
 * A noise message as a count line names it: its words folded and lower-cased, its emoji kept, and its
 * bare numbers left out, so `ok sounds good 14` and `ok sounds good 15` are counted together.
 */
export function noiseLabel(text: string): string {
	const head = labelHead(text);
	let label = labels.get(head);
	if (label === undefined) labels.set(head, (label = labelOf(head)));
	return label;
}

// A message is labelled once per scope it folds into, and twice where a count line of its day may take it: the last labels
// are kept (fifty 4,000-character messages of CJK, each a short reply of one word, took 3 ms a turn to label).
const labels = new LRUCache<string, string>({ max: 5_000 });

function labelOf(head: string): string {
	const folded = flat(head)
		.replace(WORD, (word) => (isNumeral(word) ? '' : fold(word)))
		.replace(/[^\p{L}\p{N}'’\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u200D\uFE0F:\s]/gu, '')
		.replace(/(\p{Extended_Pictographic})\1+/gu, '$1')
		.replace(/\b(\w+)(?: \1\b)+/g, '$1');
	return itemLabel(flat(folded) || head);
}

/** A text or speaker made safe for a count line: none of the characters the line is parsed by. */
export function itemLabel(text: string): string {
	return cut(flat(text.replace(/[,;×()]/g, ' ')), MAX_ITEM_CHARS) || '…';
}
