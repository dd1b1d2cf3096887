import { describe, expect, it } from 'vitest';
import { checkSummary, summaryPrompt } from '../../src/engine/summaries/citations';
import { retryAfterMs } from '../../src/engine/summaries/chatCompletions';
import { listedIds } from '../support/chat-endpoint';

const given = ['101', '102', '103'];

describe('GIVEN the sources of a background summary', () => {
	const at = Date.UTC(2026, 2, 2, 18, 5);
	const prompt = summaryPrompt(
		[
			{ ids: ['101'], message: { id: '101', role: 'user', authorName: 'Maya', text: 'We meet on\nJune 3.', ts: at } },
			{ ids: ['102', '103'], message: { id: '102', role: 'user', authorName: 'digest note', text: 'Theo agreed twice.', ts: at + 60_000 } }
		],
		800
	);

	it('THEN the system prompt asks for a citation on every line, in the fixed syntax', () => {
		expect(prompt[0]).toMatchObject({ role: 'system', content: expect.stringContaining('EVERY line must end with the ids') });
		expect(prompt[0]!.content).toContain('[ids: 123, 456]');
		expect(prompt[0]!.content).toContain('under 800 characters');
	});

	it('THEN the user message lists each source with its id, date, time and speaker, one line each', () => {
		expect(prompt[1]!.content.split('\n').slice(1)).toEqual([
			'[id 101] 2026-03-02 [18:05] Maya: We meet on ⏎ June 3.',
			'[ids 102, 103] 2026-03-02 [18:06] digest note: Theo agreed twice.'
		]);
		expect(listedIds(prompt[1]!.content)).toEqual(given);
	});
});

describe('GIVEN a model answer', () => {
	it('WHEN every line cites given ids and all are covered THEN it is accepted, citations removed', () => {
		const check = checkSummary('- Maya and Theo meet on June 3. [ids: 101, 102]\n\n2. Theo agreed. [ids: 103]', given, 500);
		expect(check).toEqual({ ok: true, summary: { text: 'Maya and Theo meet on June 3.\nTheo agreed.', sourceIds: given } });
	});

	it('WHEN it is wrapped in a code fence or cites mid-line too THEN it is still read', () => {
		const check = checkSummary('```\nMaya [ids: 101] and Theo [ids: 102] meet. [ids: 103]\n```', given, 500);
		expect(check).toMatchObject({ ok: true, summary: { text: 'Maya and Theo meet.' } });
	});

	it.each([
		['', 'empty'],
		['   \n ', 'empty'],
		['Maya and Theo meet on June 3.\nTheo agreed. [ids: 101, 102, 103]', 'missing-citation'],
		['Maya and Theo meet. [ids: ]', 'missing-citation'],
		['Maya and Theo meet. [ids: 101, 102, 103, 999]', 'unknown-id'],
		['Maya and Theo meet. [ids: 101, 102]', 'uncovered-source'],
		['Maya and Theo meet. [ids: 101, 102, 103', 'malformed'],
		['[ids: 101, 102, 103]', 'malformed'],
		['Maya meets Theo. [ids: 101, 102, 10 3]', 'unknown-id'],
		['Maya meets Theo. [ids: 101, 102, "103"]', 'malformed'],
		[`${'x'.repeat(600)} [ids: 101, 102, 103]`, 'too-long']
	])('WHEN it is %j THEN it is rejected as %s', (content, reason) => {
		expect(checkSummary(content, given, 500)).toMatchObject({ ok: false, reason });
	});
});

describe('GIVEN a 429 answer', () => {
	it('THEN Retry-After is read as seconds or a date, bounded, with a default when missing', () => {
		expect(retryAfterMs('120')).toBe(120_000);
		expect(retryAfterMs(null)).toBe(60_000);
		expect(retryAfterMs('0')).toBe(1000);
		expect(retryAfterMs('999999')).toBe(3_600_000);
		expect(retryAfterMs(new Date(Date.UTC(2026, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2026, 0, 1))).toBe(30_000);
		expect(retryAfterMs('soon')).toBe(60_000);
	});
});
