import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../../src';
import { backends, openEngine, TestClock } from '../support/backends';
import { generateChats } from '../support/chats/generate';
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

describe('GIVEN the chat-like evaluation set', () => {
	const chats = generateChats();
	const messagesOf = chats.map((chat) => fixtureMessages(chat));

	it('THEN it has the traits of real chat: some 1,000 messages over 21 days, in bursts of short lines', () => {
		expect(chats.length).toBe(10);
		for (const messages of messagesOf) {
			expect(messages.length).toBeGreaterThanOrEqual(900);
			expect(messages.length).toBeLessThanOrEqual(1_500);
			const days = new Set(messages.map((message) => new Date(message.ts).toISOString().slice(0, 10)));
			expect(days.size).toBe(21);
			expect(messages.filter((message) => message.text.length < 40).length / messages.length).toBeGreaterThan(0.6);
			// Bursts: a speaker sends several lines in a row, up to ten.
			const runs: number[] = [];
			for (const [at, message] of messages.entries())
				if (at > 0 && messages[at - 1]!.speaker.id === message.speaker.id) runs[runs.length - 1]!++;
				else runs.push(1);
			expect(Math.max(...runs)).toBeGreaterThanOrEqual(5);
			expect(runs.filter((run) => run >= 3).length).toBeGreaterThan(50);
			expect(messages.some((message) => message.text.startsWith('[photo: '))).toBe(true);
			expect(messages.every((message, at) => at === 0 || message.ts >= messages[at - 1]!.ts)).toBe(true);
		}
		// Display names that are handles, not the names the chat or the questions use.
		expect(chats.filter((chat) => !chat.questions.some((question) => question.question.includes(chat.speakers[0]!.name))).length).toBeGreaterThan(
			0
		);
	});

	it('THEN its questions are mostly multi-hop, many ask when, and every answer turn exists', () => {
		const questions = chats.flatMap((chat) => chat.questions);
		const kinds = (kind: string) => questions.filter((question) => question.kind === kind).length;
		expect(kinds('multi-hop')).toBeGreaterThan(kinds('single-hop'));
		expect(kinds('date')).toBeGreaterThan(questions.length / 5);
		chats.forEach((chat, index) => {
			const ids = new Set(messagesOf[index]!.map((message) => message.id));
			for (const question of chat.questions) for (const id of question.answerTurnIds) expect(ids.has(id), `${question.id} ${id}`).toBe(true);
			// A multi-hop question's answer turns come from different days.
			const dayOf = (id: string) => id.split(':')[1];
			expect(chat.questions.some((question) => question.kind === 'multi-hop' && new Set(question.answerTurnIds.map(dayOf)).size > 1)).toBe(
				true
			);
		});
	});

	it('THEN the same seed gives the same set, and another seed another', () => {
		expect(generateChats(2)).toEqual(generateChats(2));
		expect(generateChats(2, 1)).not.toEqual(generateChats(2));
	});
});
