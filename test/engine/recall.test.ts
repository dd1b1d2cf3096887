import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../../src';
import { backends, openEngine, TestClock } from '../support/backends';
import { generateConversations } from '../support/conversations/generate';
import { fixtureMessages, keywordTop3Recall, loadFixture, measureRecall, plainBm25Recall, replayConversation } from '../support/recall';

const fixture = loadFixture();
const messages = fixtureMessages(fixture);

describe('GIVEN the long multi-session conversation fixture', () => {
	const clock = new TestClock(messages[0]!.ts);
	let engine: MemoryEngine;
	let dispose: () => Promise<void>;

	beforeAll(async () => {
		// The fixture spans eleven weeks, so the archive keeps it all; every other setting is the default.
		({ engine, dispose } = await openEngine(backends[0]!, { now: clock.now, config: { archiveRetentionDays: 120 } }));
		await replayConversation(engine, fixture, (ts) => (clock.current = ts));
	}, 120_000);
	afterAll(() => dispose());

	it('has the size the recall measurement needs', () => {
		expect(messages.length).toBeGreaterThanOrEqual(300);
		expect(new Set(messages.map((message) => new Date(message.ts).toISOString().slice(0, 10))).size).toBeGreaterThanOrEqual(7);
		expect(fixture.questions.length).toBeGreaterThanOrEqual(50);
	});

	it('THEN most answer turns reach a 1,500-token context, far more than the naive references', async () => {
		const ours = await measureRecall(engine, fixture, 1500);
		const keyword = keywordTop3Recall(fixture);
		const bm25 = plainBm25Recall(fixture, 1500);
		console.log(
			`[recall] answer turns in context at 1500 tokens: ${ours.found}/${ours.answerTurns} = ${(ours.recall * 100).toFixed(1)}% ` +
				`(keyword top-3: ${(keyword * 100).toFixed(1)}%, plain BM25 packed: ` +
				`${(bm25 * 100).toFixed(1)}%; full history: ${ours.fullHistoryTokens} tokens)`
		);
		expect(ours.maxContextTokens).toBeLessThanOrEqual(1500);
		expect(ours.recall).toBeGreaterThan(bm25);
		expect(ours.recall).toBeGreaterThanOrEqual(0.7);
	});
});

describe('GIVEN the generated evaluation set', () => {
	const conversations = generateConversations();

	it('THEN it has the shape of a long-memory benchmark: ten or more conversations of 15+ dated sessions over months, 300 to 700 messages', () => {
		expect(conversations.length).toBeGreaterThanOrEqual(10);
		for (const conversation of conversations) {
			const messages = fixtureMessages(conversation);
			const days = (messages.at(-1)!.ts - messages[0]!.ts) / 86_400_000;
			expect(conversation.sessions.length).toBeGreaterThanOrEqual(15);
			expect(days).toBeGreaterThanOrEqual(90);
			expect(messages.length).toBeGreaterThanOrEqual(300);
			expect(messages.length).toBeLessThanOrEqual(700);
			expect(new Set(conversation.speakers.map((speaker) => speaker.id)).size).toBe(2);
		}
	});

	it('THEN every conversation asks the four kinds of question, each naming turns that exist', () => {
		for (const conversation of conversations) {
			const ids = new Set(fixtureMessages(conversation).map((message) => message.id));
			expect(new Set(conversation.questions.map((question) => question.kind))).toEqual(
				new Set(['single-hop', 'multi-hop', 'temporal', 'open'])
			);
			for (const question of conversation.questions) {
				expect(question.answerTurnIds.length).toBeGreaterThan(0);
				for (const id of question.answerTurnIds) expect(ids.has(id)).toBe(true);
			}
			const multi = conversation.questions.filter((question) => question.kind === 'multi-hop');
			const sessionOf = (id: string) => id.split(':')[1];
			expect(multi.some((question) => new Set(question.answerTurnIds.map(sessionOf)).size > 1)).toBe(true);
		}
	});

	it('THEN the same seed gives the same set, and another seed another', () => {
		expect(generateConversations(2)).toEqual(generateConversations(2));
		expect(generateConversations(2, 1)).not.toEqual(generateConversations(2));
	});
});
