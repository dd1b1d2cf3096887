import { REPEATED_LINE_MAX_CHARS } from '../archive/index/columns';
import { lineWords, tokenize } from '../archive/index/terms';
/**
 * A short line whose words (stemmed, stop words out, digits in) are at least this share of the words of a line already offered
 * and its own together (Jaccard) says it again: `random but made a big pot of soup 🙃` after `made a big pot of soup`.
 * High enough that a line changing one word of four is new (`the flat in Kingsmead, 1150 a month` after `…, 1000 a month`:
 * three of five); docs/context.md measures it (lower shares find more on the generated set by dropping its small talk).
 */
const SAME_WORDS_SHARE = 0.8;

/** A short line met: its text, and its words' mask (see `wordMask`), with its words once they were needed. */
interface Offered {
	text: string;
	mask: number;
	words?: Set<number>;
}

/**
 * The short lines the relevant tier has met, to show a line said again once, where it ranks best: the same text,
 * case aside, or nearly the same words. Lines are compared by their words' masks, and word by word only when the masks
 * are as alike: a context compares a few hundred lines, and this keeps it to a few dozen integer operations each.
 */
export class RepeatedLines {
	private readonly texts = new Set<string>();
	private readonly offered: Offered[] = [];

	/** Whether `text` (whose words' mask is `mask`) repeats a line met before. */
	public repeats(text: string, mask: number): boolean {
		if (text.length > REPEATED_LINE_MAX_CHARS) return false;
		const line = text.toLowerCase();
		if (this.texts.has(line)) return true;
		this.texts.add(line);
		// One or no word ("lol", "Long day?"): only the same text repeats it.
		if ((mask & (mask - 1)) === 0) return false;
		const candidate: Offered = { text, mask };
		const repeated = this.offered.some(
			(other) =>
				share(bitCount(mask & other.mask), bitCount(mask), bitCount(other.mask)) >= SAME_WORDS_SHARE &&
				sameWordsShare(wordsOf(candidate), wordsOf(other)) >= SAME_WORDS_SHARE
		);
		// Kept even when it repeats: a third wording is compared with both.
		this.offered.push(candidate);
		return repeated;
	}
}

function wordsOf(line: Offered): Set<number> {
	line.words ??= lineWords(tokenize(line.text));
	return line.words;
}

/** The words two lines share, of the words of both (Jaccard). */
function sameWordsShare(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
	let shared = 0;
	for (const word of a) if (b.has(word)) shared++;
	return share(shared, a.size, b.size);
}

function share(shared: number, a: number, b: number): number {
	return shared / (a + b - shared);
}

function bitCount(value: number): number {
	let bits = value - ((value >>> 1) & 0x55555555);
	bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
	return (((bits + (bits >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
