import { countTokens, setMergeCacheSize } from 'gpt-tokenizer';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { LRUCache } from 'lru-cache';

/**
 * How tokens are counted (docs/context.md, "Limits"). A text is cut into the pieces o200k's own split pattern makes
 * (a word with its leading space, a run of punctuation, up to three digits, a run of white space); the tokens of a
 * text are the sum of its pieces' tokens, each piece being encoded alone. Each piece is counted one of two ways:
 * exactly, by the BPE tokenizer, or as its UTF-8 bytes (every byte is a token of its own at worst, so this is never
 * below the true count). The tokenizer takes some 2 to 7 µs per byte of a piece it has not seen, so the bytes stand
 * in where its work would not be bounded: for a piece longer than {@link LONG_PIECE_BYTES} (4,000 characters of CJK,
 * one unbroken word, emoji or combining marks are one piece each), and for new pieces once
 * the tokenizer did {@link EXACT_WORK_PER_TICK} of work in the same turn of the event loop.
 */

/** A piece of more UTF-8 bytes than this is counted as its bytes: ordinary words and sentences are far shorter. */
export const LONG_PIECE_BYTES = 64;
/**
 * What the tokenizer may do per turn of the event loop (some 10 ms at worst), in bytes it merges: a new piece costs its
 * bytes, or 1 when it is one word of the vocabulary (found without merging).
 */
export const EXACT_WORK_PER_TICK = 4096;

// A member's "<|endoftext|>" is text to the model, counted as such (by default the tokenizer throws on it).
const AS_TEXT = { disallowedSpecial: new Set<string>() };
// The tokenizer's own cache of merged words (100,000 by default, some 10 MB): a chat's everyday words fit in far fewer.
setMergeCacheSize(5_000);
// Each piece's count, which also tells a new piece (work to spend) from a known one.
const pieces = new LRUCache<string, number>({ max: 20_000 });
// Lines recur across contexts (the same message in many replies), so their counts are cached too.
const lines = new LRUCache<string, number>({ max: 5_000 });

let workLeft = EXACT_WORK_PER_TICK;
let refill: ReturnType<typeof setImmediate> | undefined;
/** Counts made once the allowance ran out, kept until it is refilled: one call weighs a line several times. */
const provisional = new Map<string, number>();

/** Takes `work` from this turn's allowance of exact counting. */
function spend(work: number): void {
	workLeft -= work;
	refill ??= setImmediate(() => {
		workLeft = EXACT_WORK_PER_TICK;
		provisional.clear();
		refill = undefined;
	}).unref();
}

/** Tokens of `text` (never below the true count) and whether a recount could find fewer (this turn's allowance ran out). */
export function boundedTokenCount(text: string): { tokens: number; settled: boolean } {
	let tokens = 0;
	let settled = true;
	for (const [piece] of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) {
		// One ASCII character is always one token.
		if (piece.length === 1 && piece.charCodeAt(0) < 0x80) {
			tokens++;
			continue;
		}
		const known = pieces.get(piece);
		if (known !== undefined) {
			tokens += known;
			continue;
		}
		const bytes = Buffer.byteLength(piece);
		if (bytes > LONG_PIECE_BYTES) tokens += bytes;
		else if (workLeft > 0) {
			// The split pattern finds this same piece in it alone: its count here is its count in the text.
			const counted = countTokens(piece, AS_TEXT);
			// A piece of one token is a word of the vocabulary, found at once; any other took a merge per byte.
			spend(counted === 1 ? 1 : bytes);
			pieces.set(piece, counted);
			tokens += counted;
		} else {
			tokens += bytes;
			settled = false;
		}
	}
	return { tokens, settled };
}

/** BPE token count (o200k_base, as GPT-4o and later) of one piece of text, never below the true count (see above). */
export function tokenCount(text: string): number {
	if (text.length === 0) return 0;
	const cached = lines.get(text) ?? provisional.get(text);
	if (cached !== undefined) return cached;
	const { tokens, settled } = boundedTokenCount(text);
	if (settled) lines.set(text, tokens);
	else if (provisional.size < 1_000) provisional.set(text, tokens);
	return tokens;
}

/**
 * Tokens of `lines` joined with `\n`. Each line is counted alone and each newline as one token:
 * lines never end in white space, so the BPE pre-tokenizer already splits at every newline and
 * the sum is never below the true count of the joined text.
 */
export function joinedTokenCount(lines: readonly string[]): number {
	let total = Math.max(0, lines.length - 1);
	for (const line of lines) total += tokenCount(line);
	return total;
}

/**
 * Cuts `text` to at most `maxTokens` tokens, marking the cut with an ellipsis. Cuts between code points
 * (never inside one), and never calls gpt-tokenizer's `decode`, whose shared streaming TextDecoder
 * carries the bytes of a split character over into the next call.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
	if (maxTokens <= 0) return '';
	if (tokenCount(text) <= maxTokens) return text;
	const chars = Array.from(text);
	const cut = (length: number) => `${chars.slice(0, length).join('').trimEnd()}…`;
	// The longest prefix that fits, found by bisection (a prefix of a prefix never counts more in practice).
	let low = 0;
	let high = chars.length - 1;
	while (low < high) {
		const middle = Math.ceil((low + high) / 2);
		if (tokenCount(cut(middle)) <= maxTokens) low = middle;
		else high = middle - 1;
	}
	return low > 0 && tokenCount(cut(low)) <= maxTokens ? cut(low) : '';
}
