/** The most characters Discord shows in one message's content. */
export const MESSAGE_CONTENT_LIMIT = 2000;

/**
 * `text` in pages of at most `limit` characters, cut between lines, nothing left out: when no line is longer than a
 * page, the pages joined with newlines are `text`. A longer line is cut inside, after its last space that fits
 * (anywhere, when it has none, but never between the two halves of a surrogate pair), and goes on on the next page.
 *
 * @example
 * textPages('a\nb\nc', 3); // ['a\nb', 'c']
 */
export function textPages(text: string, limit = MESSAGE_CONTENT_LIMIT): string[] {
	const pages: string[] = [];
	let page: string | undefined;
	for (const piece of text.split('\n').flatMap((line) => pieces(line, limit))) {
		if (page !== undefined && page.length + 1 + piece.length <= limit) page += `\n${piece}`;
		else {
			if (page !== undefined) pages.push(page);
			page = piece;
		}
	}
	pages.push(page ?? '');
	return pages;
}

/** A line as pieces of at most `limit` characters: itself, when it fits. */
function pieces(line: string, limit: number): string[] {
	const cut: string[] = [];
	let rest = line;
	while (rest.length > limit) {
		// The space stays at the end of its piece, so the pieces put together are the line.
		const space = rest.lastIndexOf(' ', limit - 1);
		let end = space > 0 ? space + 1 : limit;
		if (space <= 0 && end > 1 && /[\uD800-\uDBFF]/.test(rest[end - 1]!)) end--;
		cut.push(rest.slice(0, end));
		rest = rest.slice(end);
	}
	cut.push(rest);
	return cut;
}
