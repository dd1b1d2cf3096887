import { countTokens, setMergeCacheSize } from 'gpt-tokenizer';
import { LRUCache } from 'lru-cache';

// Lines recur across contexts (the same message in many replies), so their counts are cached.
const cache = new LRUCache<string, number>({ max: 5_000 });
// The tokenizer's own cache of merged words (100,000 by default, some 10 MB): a chat's everyday words fit in far fewer.
setMergeCacheSize(5_000);

/** Real BPE token count (o200k_base, as GPT-4o and later) of one piece of text. */
export function tokenCount(text: string): number {
	if (text.length === 0) return 0;
	const cached = cache.get(text);
	if (cached !== undefined) return cached;
	const counted = countTokens(text);
	cache.set(text, counted);
	return counted;
}

/** {@link tokenCount} of a text counted once (a message's line when it is indexed), left out of the cache. */
export function uncachedTokenCount(text: string): number {
	return text.length === 0 ? 0 : (cache.get(text) ?? countTokens(text));
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
