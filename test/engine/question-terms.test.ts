import { describe, expect, it } from 'vitest';
import { ScopeIndex } from '../../src/engine/archive/ScopeIndex';
import { dateAsked } from '../../src/engine/context/datesAsked';

/** Tuesday 20 May 2025, 21:00 UTC. */
const NOW = Date.UTC(2025, 4, 20, 21, 0);
const day = (text: string) => {
	const span = dateAsked(text, NOW);
	return span && `${new Date(span.from).toISOString().slice(0, 10)}..${new Date(span.to - 1).toISOString().slice(0, 10)}`;
};

describe('GIVEN a question asked on Tuesday 20 May 2025', () => {
	it.each([
		['What did Kat cook on Sunday the 18th?', '2025-05-18..2025-05-18'],
		['What did Jay do on May 5?', '2025-05-05..2025-05-05'],
		['what happened on the 11th', '2025-05-11..2025-05-11'],
		['what happened on the 25th', '2025-04-25..2025-04-25'],
		['What did Dani cook on 8 August?', '2024-08-08..2024-08-08'],
		['What did Melanie paint in May 2023?', '2023-05-01..2023-05-31'],
		['what did she say on 2025-05-01', '2025-05-01..2025-05-01'],
		['What did Kat do yesterday?', '2025-05-19..2025-05-19'],
		['anything new today?', '2025-05-20..2025-05-20'],
		['what did Jaime do last Monday?', '2025-05-19..2025-05-19'],
		['what did Jaime do last Tuesday?', '2025-05-13..2025-05-13'],
		['what did we do last weekend', '2025-05-17..2025-05-18'],
		['what happened last week', '2025-05-12..2025-05-18'],
		['what happened last month', '2025-04-01..2025-04-30'],
		['what did she do two weeks ago', '2025-05-03..2025-05-09'],
		['what did she do 3 days ago', '2025-05-17..2025-05-17'],
		['in March?', '2025-03-01..2025-03-31'],
		['in 2023', '2023-01-01..2023-12-31']
	])('THEN "%s" names %s', (question, expected) => {
		expect(day(question)).toBe(expected);
	});

	it.each([
		'When did Caroline go to the LGBTQ support group?',
		'the 2 of us went',
		'What may she do next?',
		'morning Kat',
		'what happened on the 45th',
		'how many times 1000000 days ago'
	])('THEN "%s" names no day', (question) => {
		expect(day(question)).toBeNull();
	});
});

describe('GIVEN an index of messages on several days', () => {
	const index = new ScopeIndex();
	const at = (month: number, date: number) => Date.UTC(2025, month, date, 12, 0);
	index.add([
		{ id: '1', role: 'user', authorId: 'm', authorName: 'Maya', text: 'made a lasagne', ts: at(4, 4) },
		{ id: '2', role: 'user', authorId: 'm', authorName: 'Maya', text: 'climbing after work', ts: at(4, 11) },
		{ id: '3', role: 'user', authorId: 'm', authorName: 'Maya', text: 'climbing again, new route', ts: at(4, 18) }
	]);

	it('THEN the day a question names ranks what was said that day first, alone when no word matches', () => {
		expect(index.rank('what did Maya do?', 10, Number.NEGATIVE_INFINITY, dateAsked('what did Maya do on the 11th?', NOW))[0]!.at).toBe(1);
		const hits = index.rank('any news', 10, Number.NEGATIVE_INFINITY, dateAsked('on the 4th', NOW));
		expect(hits.map((hit) => hit.at)).toEqual([0]);
	});

	it('THEN a day and a word both count: the climbing of the 18th before the one of the 11th', () => {
		const hits = index.rank('climbing last Sunday', 10, Number.NEGATIVE_INFINITY, dateAsked('climbing last Sunday', NOW));
		expect(hits.slice(0, 2).map((hit) => hit.at)).toEqual([2, 1]);
	});

	it('THEN messages older than the retention are no hit for their day', () => {
		expect(index.rank('any news', 10, at(4, 10), dateAsked('on the 4th', NOW))).toEqual([]);
	});
});

describe('GIVEN how speakers are addressed in a channel', () => {
	const index = new ScopeIndex();
	const maya = { role: 'user' as const, authorId: 'm', authorName: 'kat.jpg' };
	const sol = { role: 'persona' as const, personaId: 'sol', authorName: 'Sol' };
	const lines: [typeof maya | typeof sol, string][] = [
		[maya, 'hey'],
		[sol, 'morning Mimi'],
		[maya, 'omg Becca is pregnant'],
		[sol, 'thanks, Mimi!'],
		[maya, "it's Monday!"],
		[sol, 'ok'],
		[maya, "it's Monday again"],
		[maya, 'the ramen on Elm is the best']
	];
	index.add(lines.map(([speaker, text], at) => ({ id: String(at + 1), ...speaker, text, ts: at * 60_000 })));

	it('THEN a name the other speaker greets her by twice stands for her display name', () => {
		const hits = index.rank('what does Mimi eat?', 10);
		expect(hits.every((hit) => index.speakerAt(hit.at).authorName === 'kat.jpg')).toBe(true);
	});

	it('THEN a name followed by more words, or a weekday after "it\'s", is taken for nobody', () => {
		// "Becca" and "Monday" stay words of the text: the lines holding them are what they find.
		expect(index.rank('Becca', 10).map((hit) => index.texts[hit.at])).toContain('omg Becca is pregnant');
		expect(index.rank('Monday', 10).map((hit) => index.texts[hit.at])).toEqual(expect.arrayContaining(["it's Monday!", "it's Monday again"]));
	});
});
