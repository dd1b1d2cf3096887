import { constants, type NodeGCPerformanceDetail, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
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
 * What the tokenizer may do per turn of the event loop (some 3 ms at worst: 1 to 3 µs a byte), in bytes it merges: a new
 * piece costs its bytes, or 1 when it is one word of the vocabulary (found without merging). A context of ordinary chat
 * meets far fewer new pieces than this; a recent window of made-up words spent 4,096 of it in 11 ms.
 */
export const EXACT_WORK_PER_TICK = 1024;

/**
 * o200k's split pattern, one object of our own read with `exec`: `matchAll` copies the pattern at every call, and V8
 * compiles a copy again once two full garbage collections dropped it from its cache (some 5 ms for this pattern).
 */
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, O200K_TOKEN_SPLIT_REGEX.flags);

// A member's "<|endoftext|>" is text to the model, counted as such (by default the tokenizer throws on it).
const AS_TEXT = { disallowedSpecial: new Set<string>() };
// The tokenizer's own cache of merged words (100,000 by default, some 10 MB): a chat's everyday words fit in far fewer.
setMergeCacheSize(5_000);
// Each piece's count, which also tells a new piece (work to spend) from a known one.
const pieces = new LRUCache<string, number>({ max: 20_000 });
// Lines recur across contexts (the same message in many replies), so their counts are cached too: 5,000 lines of chat,
// within 1,000,000 characters (a line of a 4,000-character message is its own copy of the text: 5,000 of them, 40 MB).
const lines = new LRUCache<string, number>({ max: 5_000, maxSize: 1_000_000, sizeCalculation: (_tokens, line) => line.length });

let workLeft = EXACT_WORK_PER_TICK;
let refill: ReturnType<typeof setImmediate> | undefined;
/** Counts made once the allowance ran out, kept until it is refilled: one call weighs a line several times. */
const provisional = new Map<string, number>();

/** Takes `work` from this turn's allowance of exact counting. */
function spend(work: number): void {
	workLeft -= work;
	refill ??= setImmediate(() => {
		refillTokenizerAllowance();
		refill = undefined;
	}).unref();
}

/**
 * Gives the tokenizer its whole allowance again: at the next turn of the event loop, and at the start of each context,
 * since what a context counts exactly must not depend on whether the calls before it let the event loop turn. A script
 * that asks its questions one after another in a loop of awaits lets none pass (SQLite answers at once), and its contexts
 * counted most new words as their bytes and held fewer lines: 16 answer turns of the fixture's 109 missed at 1,500 tokens
 * with a turn between questions, 23 without. Contexts started in the same turn share the allowances they refill (each
 * context's tiers yield once it held the event loop 6 ms).
 */
export function refillTokenizerAllowance(): void {
	workLeft = EXACT_WORK_PER_TICK;
	provisional.clear();
}

/** What {@link boundedTokenCount} found. */
interface BoundedCount {
	/** Tokens of the text (never below the true count), or, past the limit, of as much of it as was read: more than the limit. */
	tokens: number;
	/** False when a recount could find fewer (this turn's allowance ran out, and pieces counted as their bytes). */
	settled: boolean;
	/** Characters from the start whose tokens are within the limit (the whole text when it is). */
	fits: number;
}

/**
 * Tokens of `text`, read piece by piece and no further than `limit` tokens: the work is bounded by the limit, not by the
 * text's length (a line that cannot fit is known as such after its first `limit` tokens).
 */
export function boundedTokenCount(text: string, limit = Number.POSITIVE_INFINITY): BoundedCount {
	let tokens = 0;
	let settled = true;
	SPLIT.lastIndex = 0;
	for (let match = SPLIT.exec(text); match !== null; match = SPLIT.exec(text)) {
		const [piece] = match;
		const counted = pieceTokens(piece);
		if (counted < 0) settled = false;
		const pieceCount = Math.abs(counted);
		if (tokens + pieceCount > limit) {
			// A piece counted as its bytes fits in part: as many of its characters as their bytes allow.
			const fits = match.index + (pieceCount === Buffer.byteLength(piece) ? charsWithin(piece, limit - tokens) : 0);
			return { tokens: tokens + pieceCount, settled, fits };
		}
		tokens += pieceCount;
	}
	return { tokens, settled, fits: text.length };
}

/** Tokens of one piece of the split, never below its true count; negative when it stood in as its bytes for lack of allowance. */
function pieceTokens(piece: string): number {
	// One ASCII character is always one token.
	if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
	const known = pieces.get(piece);
	if (known !== undefined) return known;
	const bytes = Buffer.byteLength(piece);
	if (bytes > LONG_PIECE_BYTES) return bytes;
	if (workLeft <= 0) return -bytes;
	// The split pattern finds this same piece in it alone: its count here is its count in the text.
	const counted = countTokens(piece, AS_TEXT);
	// A piece of one token is a word of the vocabulary, found at once; any other took a merge per byte.
	spend(counted === 1 ? 1 : bytes);
	pieces.set(piece, counted);
	return counted;
}

/** Characters of `piece`'s beginning whose UTF-8 bytes are at most `bytes`, never splitting a character. */
function charsWithin(piece: string, bytes: number): number {
	let used = 0;
	let chars = 0;
	for (const character of piece) {
		used += Buffer.byteLength(character);
		if (used > bytes) break;
		chars += character.length;
	}
	return chars;
}

/**
 * Keeps the tokenizer's split pattern compiled while an engine is open; returns what stops it. gpt-tokenizer copies the
 * pattern at every count (`matchAll`), and V8 compiles a copy again (some 5 ms) once two full garbage collections passed
 * without one: in the first context after a restart, or in a quiet bot's next reply. Counting a word after each full
 * collection keeps the pattern in V8's cache, for the cost of a lookup.
 */
export function keepTokenizerCompiled(): () => void {
	const observer = new PerformanceObserver((list) => {
		const collections = list.getEntries() as (PerformanceEntry & { detail?: NodeGCPerformanceDetail })[];
		if (collections.some((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) countTokens('Memory', AS_TEXT);
	});
	observer.observe({ entryTypes: ['gc'] });
	return () => observer.disconnect();
}

/**
 * BPE token count (o200k_base, as GPT-4o and later) of one piece of text, never below the true count (see above). With a
 * `limit`, a text of more tokens is read only that far, and counts as some number above the limit.
 */
export function tokenCount(text: string, limit = Number.POSITIVE_INFINITY): number {
	if (text.length === 0) return 0;
	const cached = lines.get(text) ?? provisional.get(text);
	if (cached !== undefined) return cached;
	const { tokens, settled, fits } = boundedTokenCount(text, limit);
	// Only a whole count is kept.
	if (fits < text.length) return tokens;
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
 * Cuts `text` to at most `maxTokens` tokens, marking the cut with an ellipsis: its beginning as far as its pieces fit,
 * read once and no further (a piece counted as its bytes is cut between characters). Never calls gpt-tokenizer's
 * `decode`, whose shared streaming TextDecoder carries the bytes of a split character over into the next call.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
	if (maxTokens <= 0) return '';
	if (tokenCount(text, maxTokens) <= maxTokens) return text;
	let { fits } = boundedTokenCount(text, maxTokens - tokenCount(ELLIPSIS));
	// The ellipsis may join the last piece (`?…`): shorter until the whole cut fits.
	for (;;) {
		const cut = `${text.slice(0, fits).trimEnd()}${ELLIPSIS}`;
		if (fits > 0 && tokenCount(cut, maxTokens) <= maxTokens) return cut;
		if (fits === 0) return '';
		fits = previousCharacter(text, fits);
	}
}

const ELLIPSIS = '…';

/** Where the character before `end` starts (a surrogate pair is one character). */
function previousCharacter(text: string, end: number): number {
	const low = text.charCodeAt(end - 1);
	return end >= 2 && low >= 0xdc00 && low <= 0xdfff && /[\uD800-\uDBFF]/.test(text[end - 2]!) ? end - 2 : end - 1;
}
