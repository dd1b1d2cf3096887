/**
 * Token counting in bounded work (docs/context.md, "Limits"): whatever a member writes, the count of a text is never
 * below what the BPE tokenizer counts for it whole, long runs are counted as their UTF-8 bytes, ordinary text is counted
 * exactly, and an end-cut text stays within the tokens it was cut to. The true count is gpt-tokenizer's own `countTokens`
 * on the whole text, with special-token strings read as text (as a chat API reads a message).
 */
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { tokenCount } from '../../src/engine';
import { boundedTokenCount, truncateToTokens } from '../../src/engine/format/tokens';

const trueCount = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
const bytes = (text: string) => Buffer.byteLength(text);

/** Fragments a hostile or ordinary message is made of, in many scripts. */
const FRAGMENTS = [
	...'漢字かなカナ한글中文字符',
	'👨‍👩‍👧',
	'🏳️‍🌈',
	'🧑🏽‍💻',
	'😀',
	'\u200d',
	'\ufe0f',
	'a\u0301',
	'\u0323',
	'\u0308',
	...'ก่ขึ้',
	...'مرحبا',
	...'привет',
	' ',
	'  ',
	'\t',
	'\n',
	'\r\n',
	'\u00a0',
	'\u3000',
	'\u2028',
	"'s",
	"'ll",
	"n't",
	'’',
	...'.,!?;:-/()[]"',
	'，',
	'。',
	...'0123456789',
	'the',
	' dog',
	'Biscuit',
	'ABC',
	'xkqzv',
	'<|endoftext|>',
	'<|im_start|>',
	'\ud800'
];
const fragmentArb = fc.constantFrom(...FRAGMENTS);
/** Texts of mixed fragments, now and then a long run of one of them (an unbroken word, a wall of emoji). */
const textArb = fc.oneof(
	{ weight: 4, arbitrary: fc.array(fragmentArb, { maxLength: 120 }).map((parts) => parts.join('')) },
	{
		weight: 2,
		arbitrary: fc
			.tuple(fc.array(fragmentArb, { maxLength: 10 }), fragmentArb, fc.integer({ min: 10, max: 400 }), fc.array(fragmentArb, { maxLength: 10 }))
			.map(([before, run, times, after]) => before.join('') + run.repeat(times) + after.join(''))
	},
	{ weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 300 }) },
	{ weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) }
);

/** 4,000 characters of each kind the hostile members send. */
const HOSTILE: [string, string][] = [
	['CJK', Array.from({ length: 4000 }, (_, at) => String.fromCodePoint(0x4e00 + ((at * 7919) % 20_000))).join('')],
	['one unbroken word', Array.from({ length: 4000 }, (_, at) => 'abcdefghijklmnopqrstuvwxyz'[(at * 7) % 26]).join('')],
	['emoji with joiners', '👨‍👩‍👧🏳️‍🌈🧑🏽‍💻😀'.repeat(200).slice(0, 4000)],
	['combining marks', 'a\u0301\u0323\u0308'.repeat(1000)]
];

describe('GIVEN any text, in any script', () => {
	it('THEN its count is never below the true count', async () => {
		await nextTurn();
		fc.assert(
			fc.property(textArb, (text) => {
				expect(tokenCount(text)).toBeGreaterThanOrEqual(trueCount(text));
			}),
			{ numRuns: 1_000 }
		);
	});

	it('THEN a text cut to n tokens counts at most n, by our count and by the true one', async () => {
		await nextTurn();
		fc.assert(
			fc.property(textArb, fc.integer({ min: 0, max: 200 }), (text, limit) => {
				const cut = truncateToTokens(text, limit);
				expect(tokenCount(cut)).toBeLessThanOrEqual(limit);
				expect(trueCount(cut)).toBeLessThanOrEqual(limit);
			}),
			{ numRuns: 300 }
		);
	});
});

describe('GIVEN any text AND a limit (the room a line could fit in)', () => {
	/** The most a piece of `text`'s split can count: its UTF-8 bytes (what a piece counts at worst). */
	const largestPiece = (text: string) => Math.max(0, ...Array.from(text.matchAll(O200K_TOKEN_SPLIT_REGEX), ([piece]) => bytes(piece)));

	it('THEN the count read up to the limit fits exactly when the whole count does, and then is the whole count', async () => {
		await fc.assert(
			fc.asyncProperty(textArb, fc.integer({ min: 0, max: 300 }), async (text, limit) => {
				// A fresh allowance each run, so that pieces are counted exactly as often as by bytes.
				await nextTurn();
				// The bounded count first: the whole count, once made, is cached for the line and answers any limit.
				const bounded = tokenCount(text, limit);
				const whole = tokenCount(text);
				expect(bounded <= limit).toBe(whole <= limit);
				if (whole <= limit) expect(bounded).toBe(whole);
			}),
			{ numRuns: 400 }
		);
	});

	it('THEN a text that does not fit is read no further than the piece that crosses the limit', async () => {
		await nextTurn();
		fc.assert(
			fc.property(fc.array(textArb, { minLength: 5, maxLength: 20 }), fc.integer({ min: 0, max: 200 }), (parts, limit) => {
				const text = parts.join(' ');
				const { tokens, fits } = boundedTokenCount(text, limit);
				expect(fits).toBeLessThanOrEqual(text.length);
				if (tokens <= limit) {
					expect(fits).toBe(text.length);
					return;
				}
				// Over the limit by one piece at most: a count that read on to the end would be over by much more in a long text.
				expect(tokens - limit).toBeLessThanOrEqual(largestPiece(text));
				expect(fits).toBeLessThan(text.length);
			}),
			{ numRuns: 300 }
		);
	});

	it('THEN a text cut to n tokens is the text itself when it fits, else its beginning and an ellipsis, or nothing', async () => {
		await nextTurn();
		fc.assert(
			fc.property(textArb, fc.integer({ min: 0, max: 200 }), (text, limit) => {
				const cut = truncateToTokens(text, limit);
				if (limit > 0 && tokenCount(text) <= limit) expect(cut).toBe(text);
				else if (cut !== '') {
					expect(cut.endsWith('…')).toBe(true);
					expect(text.startsWith(cut.slice(0, -1))).toBe(true);
					expect(cut.length).toBeLessThanOrEqual(text.length + 1);
				}
			}),
			{ numRuns: 500 }
		);
	});

	it('THEN 4,000 characters of one unbroken word cut to 300 tokens keep as many characters as 300 bytes allow, less the ellipsis', async () => {
		await nextTurn();
		const word = HOSTILE.find(([kind]) => kind === 'one unbroken word')![1];
		const cut = truncateToTokens(word, 300);
		// The word counts as its bytes (one a character): the cut is neither bisected short nor read past the room.
		expect(cut.length).toBeGreaterThanOrEqual(300 - tokenCount('…') - 1);
		expect(tokenCount(cut)).toBeLessThanOrEqual(300);
	});
});

describe('GIVEN 4,000 characters a hostile member sends', () => {
	it.each(HOSTILE)('WHEN they are %s THEN they count as their UTF-8 bytes, above the true count', async (_, text) => {
		await nextTurn();
		expect(tokenCount(text)).toBe(bytes(text));
		expect(tokenCount(text)).toBeGreaterThanOrEqual(trueCount(text));
	});

	it.each(HOSTILE)('WHEN they are %s and cut to 300 tokens THEN the cut keeps their beginning within 300 true tokens', async (_, text) => {
		await nextTurn();
		const cut = truncateToTokens(text, 300);
		expect(cut.endsWith('…')).toBe(true);
		expect(text.startsWith(cut.slice(0, -1))).toBe(true);
		expect(trueCount(cut)).toBeLessThanOrEqual(300);
	});
});

describe('GIVEN ordinary chat', () => {
	const chat = [
		"Maya: I adopted a beagle yesterday, she's called Biscuit!",
		'Sol: Congratulations! How old is Biscuit? 🐶',
		'我昨天收养了一只小狗，它叫饼干。你喜欢狗吗？',
		'Привет! Как дела? Мы идём в кино в 19:30.',
		'https://example.com/path/to/page?query=1&lang=en — see the "docs" section (v2.3.1).',
		'<|endoftext|> is just text when a member writes it'
	];

	it.each(chat)('WHEN a line is %s THEN it counts exactly', async (line) => {
		await nextTurn();
		expect(tokenCount(line)).toBe(trueCount(line));
	});

	it('WHEN a message of 4,000 characters of words arrives THEN it counts exactly', async () => {
		await nextTurn();
		const words = 'we walked the dog along the river and talked about the concert tickets, honestly it was great. '.repeat(42).slice(0, 4000);
		expect(tokenCount(words)).toBe(trueCount(words));
	});
});

describe('GIVEN more new text in one turn of the event loop than the tokenizer may encode in it', () => {
	/** Distinct made-up words: none is known to the counter yet. */
	const madeUp = (seed: number, count: number) =>
		Array.from({ length: count }, (_, at) => {
			let word = '';
			for (let value = (seed * 1_000_003 + at * 7_919) % 1_000_000_007; word.length < 9; value = Math.floor(value / 26) + 17 * word.length)
				word += 'bcdfghjklmnpqrstvwxz'[value % 20];
			return ` ${word}`;
		}).join('');

	it('THEN the rest counts as its bytes (never below), and a later turn counts the same text exactly', async () => {
		await nextTurn();
		const texts = Array.from({ length: 12 }, (_, at) => madeUp(at + 1, 40));
		const first = texts.map((text) => tokenCount(text));
		texts.forEach((text, at) => expect(first[at]).toBeGreaterThanOrEqual(trueCount(text)));
		expect(first.at(-1)).toBe(bytes(texts.at(-1)!));

		await nextTurn();
		expect(tokenCount(texts.at(-1)!)).toBe(trueCount(texts.at(-1)!));
	});
});

describe('GIVEN thousands of different long lines counted', () => {
	it('THEN the counts kept of them take a bounded share of the heap, not a copy of every line', async () => {
		setFlagsFromString('--expose-gc');
		const collect = runInNewContext('gc') as () => void;
		const settled = () => {
			collect();
			collect();
			return process.memoryUsage().heapUsed;
		};
		const before = settled();
		// 3,000 lines of 4,000 characters of CJK with punctuation (pieces short enough to count exactly): kept whole, some
		// 24 MB of two-byte text; the counts' cache keeps no more than 1,000,000 characters of them.
		for (let at = 0; at < 3_000; at++) {
			const line = `${String(at).padStart(5, '0')}: ${'漢字かな、カナ。'.repeat(500)}`.slice(0, 4_000);
			expect(tokenCount(line)).toBeGreaterThan(0);
			if (at % 100 === 99) await nextTurn();
		}
		expect(settled() - before).toBeLessThan(8 * 1024 * 1024);
	});
});
