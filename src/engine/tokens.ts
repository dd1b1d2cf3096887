import { countTokens, decode, encode } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';

// Lines recur across contexts (the same message in many replies), so their counts are cached.
const cache = new LRUCache<string, number>({ max: 50_000 });

/** Real BPE token count (o200k_base, as GPT-4o and later) of one piece of text. */
export function tokenCount(text: string): number {
	if (text.length === 0) return 0;
	const cached = cache.get(text);
	if (cached !== undefined) return cached;
	const counted = countTokens(text);
	cache.set(text, counted);
	return counted;
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

/** Cuts `text` to at most `maxTokens` tokens, marking the cut with an ellipsis. */
export function truncateToTokens(text: string, maxTokens: number): string {
	if (maxTokens <= 0) return '';
	if (tokenCount(text) <= maxTokens) return text;
	const tokens = encode(text);
	// One token is kept for the ellipsis; decoding a prefix can split a character, so trim until it fits.
	for (let keep = maxTokens - 1; keep > 0; keep--) {
		const cut = `${decode(tokens.slice(0, keep)).replace(/\uFFFD+$/, '').trimEnd()}…`;
		if (tokenCount(cut) <= maxTokens) return cut;
	}
	return '';
}
