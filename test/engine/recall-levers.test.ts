/**
 * The ranking and packing choices docs/context.md measures, each through the engine's public API: a speaker's other names,
 * the day a question names, bursts on one line, and neighbours after the hits; a question of two questions through the search
 * that the context draws on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../../src';
import { backends, openEngine, TestClock } from '../support/backends';
import { ScopeIndex } from '../../src/engine/archive/ScopeIndex';
import { searchArchive } from '../../src/engine/context/searchArchive';
import { ask, MAYA, said, snowflake, turn } from '../support/turns';

const DAY = 86_400_000;
const SOL_REPLY = (text: string) => ({ text, personaId: 'sol', personaName: 'Sol', messageId: snowflake() });

let engine: MemoryEngine;
let dispose: () => Promise<void>;
let clock: TestClock;

beforeEach(async () => {
	// Monday 2 March 2026, 18:00 UTC.
	clock = new TestClock();
	({ engine, dispose } = await openEngine(backends[0]!, { now: clock.now, config: { archiveRetentionDays: 365 } }));
});
afterEach(() => dispose());

/** Maya says each of `lines` in a turn of its own, a minute apart, Sol answering `reply`. */
async function mayaSays(lines: string[], reply = 'Nice.') {
	for (const text of lines) {
		clock.advance(60_000);
		await engine.recordTurn(turn({ text, reply, timestamp: clock.current }));
	}
}

/** Small talk enough to push what came before out of the recent window. */
async function smallTalk(count = 14) {
	for (let at = 0; at < count; at++) {
		clock.advance(60_000);
		await engine.recordTurn(turn({ text: `just chatting ${at}`, reply: 'Sure.', timestamp: clock.current }));
	}
}

const relevantOf = async (query: string, tokenBudget = 1_500) =>
	(await engine.buildContext(ask({ query, tokenBudget }))).blocks.find((block) => block.tier === 'relevant')?.text ?? '';

describe('GIVEN a member Sol greets by a name that is not her display name', () => {
	it('THEN a question naming her by it ranks her own messages, not the greetings', async () => {
		// Sol calls Maya "Mimi" (twice: a name seen once is not taken for one); Maya's display name stays "Maya".
		for (const greeting of ['morning Mimi', 'thanks, Mimi!']) {
			clock.advance(60_000);
			await engine.recordTurn({ ...turn({ text: 'hey', timestamp: clock.current }), responses: [SOL_REPLY(greeting)] });
		}
		await smallTalk(6);
		// Another member names ramen places too: only Maya's line answers a question about her.
		for (let at = 0; at < 10; at++) {
			clock.advance(60_000);
			const theo = { id: '739104826351907842', name: 'Theo' };
			await engine.recordTurn(turn({ who: theo, text: `ramen spot number ${at} on the high street is fine`, timestamp: clock.current }));
		}
		await mayaSays(['the ramen place on Elm does the best broth']);
		await smallTalk();
		const relevant = await relevantOf('which ramen place does Mimi like?', 300);
		expect(relevant).toContain('the ramen place on Elm does the best broth');
		// Read as a word of the text, the name would rank Sol's greetings first.
		expect(relevant).not.toContain('Mimi');
	});
});

describe('GIVEN messages on several days', () => {
	it('THEN a question naming a day ("on the 4th", "last Friday") finds what was said that day without a word in common', async () => {
		for (const [day, text] of [
			[1, 'made a lasagne from scratch'],
			[2, 'went to the climbing wall after work'],
			[4, 'finished the puzzle with my sister']
		] as const) {
			clock.current = Date.UTC(2026, 2, 2 + day, 19, 0);
			await engine.recordTurn(turn({ text, reply: 'Nice!', timestamp: clock.current }));
			await smallTalk(6);
		}
		clock.current = Date.UTC(2026, 2, 10, 12, 0);
		await smallTalk();
		// Tuesday 10 March: the 4th is Wednesday 4 March, "last Friday" is 6 March.
		const onTheFourth = await relevantOf('what did Maya get up to on the 4th?', 200);
		expect(onTheFourth).toContain('went to the climbing wall after work');
		expect(onTheFourth).not.toContain('lasagne');
		const lastFriday = await relevantOf('what did Maya do last Friday?', 200);
		expect(lastFriday).toContain('finished the puzzle with my sister');
	});
});

describe('GIVEN a question of two questions whose answers were said on different days', () => {
	it('THEN the second part answer is among the first hits even when the first part matches many messages better', () => {
		const index = new ScopeIndex();
		const chores = ['kneading dough', 'the ovens', 'opening up', 'the till', 'croissants', 'deliveries', 'the rota', 'sourdough'];
		const texts = [
			...chores.map((chore) => `the bakery job: ${chore} all morning`),
			...Array.from({ length: 30 }, (_, at) => `just chatting ${at}`),
			'they asked me about spreadsheets for twenty minutes'
		];
		index.add(texts.map((text, at) => ({ id: String(at + 1), role: 'user', authorId: MAYA.id, authorName: MAYA.name, text, ts: at * 60_000 })));
		const question = 'which bakery gave her the job, and what did they ask about?';
		const answer = texts.length - 1;
		// As one query, every line matching two of its words outranks the one matching a single word.
		expect(index.rank(question, 100).findIndex((hit) => hit.at === answer)).toBeGreaterThanOrEqual(chores.length);
		const hits = searchArchive(index, question, 100, Number.NEGATIVE_INFINITY, Date.UTC(2026, 2, 2));
		expect(hits.slice(0, 3).map((hit) => hit.at)).toContain(answer);
		expect(hits.slice(0, 3).some((hit) => texts[hit.at]!.startsWith('the bakery job'))).toBe(true);
		// Each place once.
		expect(new Set(hits.map((hit) => hit.at)).size).toBe(hits.length);
	});
});

describe('GIVEN a member who texts in bursts', () => {
	it('THEN a burst shows on one line under one label, and a message of another speaker or minutes later starts a line', async () => {
		clock.advance(60_000);
		const start = clock.current;
		await engine.recordTurn({
			...turn({ timestamp: start }),
			history: [
				said(MAYA, 'omg', start - 50_000),
				said(MAYA, 'guess what', start - 40_000),
				said(MAYA, 'i got the job at the bakery', start - 30_000)
			],
			responses: [SOL_REPLY('Congratulations!')]
		});
		clock.advance(10 * 60_000);
		await engine.recordTurn({ ...turn({ text: 'start monday', timestamp: clock.current }), responses: [SOL_REPLY('So soon!')] });
		const recent = (await engine.buildContext(ask({ query: '' }))).blocks.find((block) => block.tier === 'recent')!;
		const lines = recent.text.split('\n');
		expect(lines).toContain('Maya: omg / guess what / i got the job at the bakery');
		expect(lines).toContain('Sol: Congratulations!');
		expect(lines).toContain('Maya: start monday');
		// Each message is still its own source.
		expect(recent.sourceIds.length).toBe(6);

		await smallTalk();
		const relevant = await relevantOf('what job did Maya get?');
		expect(relevant).toContain('Maya: omg / guess what / i got the job at the bakery');
	});
});

describe('GIVEN hits whose neighbours answer them', () => {
	it('THEN the hits come first and their neighbours fill the room they leave', async () => {
		await mayaSays(['what should i cook for the dinner party', 'a mushroom risotto, definitely'], 'Good call.');
		await smallTalk();
		const context = await engine.buildContext(ask({ query: 'dinner party plans', tokenBudget: 1_500 }));
		const relevant = context.blocks.find((block) => block.tier === 'relevant')!;
		expect(relevant.text).toContain('what should i cook for the dinner party');
		// The message after the hit, on no word of the question.
		expect(relevant.text).toContain('Sol: Good call.');
	});
});
