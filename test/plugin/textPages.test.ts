import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MESSAGE_CONTENT_LIMIT, textPages } from '../../src/plugin/textPages';

/** Lines as a profile holds them: short and long, words, emoji, empty lines. */
const line = fc.oneof(
	fc.string({ maxLength: 80 }),
	fc.string({ unit: 'grapheme', maxLength: 600 }),
	fc.array(fc.constantFrom('tomato', '🍅', 'שלום', ' ', 'x'.repeat(300)), { maxLength: 400 }).map((words) => words.join(' '))
);
const text = fc.array(line, { maxLength: 60 }).map((lines) => lines.join('\n'));

describe('textPages: text in pages Discord shows whole', () => {
	it('GIVEN any text and page size THEN every page fits, and the pages hold every character of it, in order', () => {
		fc.assert(
			fc.property(text, fc.integer({ min: 2, max: 2500 }), (text, limit) => {
				const pages = textPages(text, limit);

				for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
				// Only the newlines between pages, and those cutting a line too long for a page, are the pager's.
				expect(pages.join('').replaceAll('\n', '')).toBe(text.replaceAll('\n', ''));
				if (text.split('\n').every((line) => line.length <= limit)) expect(pages.join('\n')).toBe(text);
			})
		);
	});

	it('GIVEN lines that fit THEN pages are cut between lines only, each as full as the next line allows', () => {
		const lines = Array.from({ length: 30 }, (_, index) => `• preference ${index}: ${'v'.repeat(150)}`);

		const pages = textPages(lines.join('\n'));

		expect(pages.join('\n')).toBe(lines.join('\n'));
		for (const [index, page] of pages.slice(0, -1).entries()) {
			const next = pages[index + 1]!.split('\n')[0]!;
			expect(page.length + 1 + next.length).toBeGreaterThan(MESSAGE_CONTENT_LIMIT);
		}
	});

	it('GIVEN a line longer than a page THEN it is cut after a space, never inside a word or an emoji', () => {
		const words = Array.from({ length: 500 }, (_, index) => `w${index}🍅`);

		const pages = textPages(words.join(' '), 100);

		expect(pages.join('')).toBe(words.join(' '));
		for (const page of pages.slice(0, -1)) expect(page.endsWith(' ')).toBe(true);
	});

	it('GIVEN a word of emoji longer than a page THEN it is cut between emoji, never between the halves of one', () => {
		const pages = textPages('🍅'.repeat(120), 101);

		expect(pages.join('')).toBe('🍅'.repeat(120));
		for (const page of pages) expect(page).toMatch(/^(?:🍅)+$/u);
	});
});
