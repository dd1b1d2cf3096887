/** The text on one line with its white space collapsed (U+0085 is a line break `\s` misses). */
export function flat(text: string): string {
	return text.replace(/[\s\u0085]+/g, ' ').trim();
}

/** Cuts `text` to at most `max` UTF-16 units, at a word boundary where one is near, never inside a character. */
export function cut(text: string, max: number): string {
	if (text.length <= max) return text;
	if (max < 2) return '';
	let end = max - 1;
	// A surrogate pair is never split.
	if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
	const head = text.slice(0, end);
	const space = head.lastIndexOf(' ');
	return `${(space >= end * 0.6 ? head.slice(0, space) : head).trimEnd()}…`;
}
