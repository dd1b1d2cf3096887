import { setImmediate as nextTurn } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { countTokens } from 'gpt-tokenizer';
import type { MemoryEngine, MemoryTurn } from '../../src';

/** The long-conversation fixture: sessions of turns, and questions naming the turns that answer them. */
export interface ConversationFixture {
	speakers: { id: string; name: string; role: 'user' | 'persona' }[];
	/** A turn's time is its own `at` when it has one, else 90 s after the turn before it from the session's start. */
	sessions: { id: number; start: string; turns: { id: string; speaker: string; text: string; at?: string }[] }[];
	questions: { id: string; question: string; answerTurnIds: string[]; kind: string }[];
}

export interface FixtureMessage {
	id: string;
	speaker: { id: string; name: string; role: 'user' | 'persona' };
	text: string;
	ts: number;
}

export const SERVER_ID = '900000000000000001';
export const CHANNEL_ID = '900000000000000002';
export const PERSONA_ID = 'persona-sol';
const TURN_SPACING_MS = 90_000;

export function loadFixture(): ConversationFixture {
	return JSON.parse(readFileSync(join(__dirname, '../fixtures/long-conversation.json'), 'utf8')) as ConversationFixture;
}

/** Every message of the fixture with its speaker and time, in order. */
export function fixtureMessages(fixture: ConversationFixture): FixtureMessage[] {
	const speakers = new Map(fixture.speakers.map((speaker) => [speaker.id, speaker]));
	return fixture.sessions.flatMap((session) =>
		session.turns.map((turn, index) => ({
			id: turn.id,
			speaker: speakers.get(turn.speaker)!,
			text: turn.text,
			ts: turn.at ? Date.parse(turn.at) : Date.parse(session.start) + index * TURN_SPACING_MS
		}))
	);
}

/**
 * Records every turn of a conversation with the clock at each turn's time, then sets the clock an hour
 * after its last message, where the questions are asked.
 */
export async function replayConversation(engine: MemoryEngine, fixture: ConversationFixture, setNow: (ts: number) => void): Promise<void> {
	const messages = fixtureMessages(fixture);
	for (const turn of fixtureTurns(messages)) {
		setNow(turn.timestamp!);
		await engine.recordTurn(turn);
	}
	setNow(messages.at(-1)!.ts + 3_600_000);
}

/** Replays the fixture as a bot would see it: one recorded turn per persona reply, with the ten messages before it as history. */
export function fixtureTurns(messages: readonly FixtureMessage[]): MemoryTurn[] {
	const turns: MemoryTurn[] = [];
	messages.forEach((message, index) => {
		if (message.speaker.role !== 'persona') return;
		const history = messages.slice(Math.max(0, index - 10), index);
		const trigger = [...history].reverse().find((entry) => entry.speaker.role === 'user');
		if (!trigger) return;
		turns.push({
			userId: trigger.speaker.id,
			userName: trigger.speaker.name,
			serverId: SERVER_ID,
			channelId: CHANNEL_ID,
			timestamp: message.ts,
			history: history.map((entry) => ({
				role: entry.speaker.role,
				authorId: entry.speaker.id,
				authorName: entry.speaker.name,
				text: entry.text,
				messageId: entry.id,
				timestamp: entry.ts
			})),
			responses: [{ text: message.text, personaId: PERSONA_ID, personaName: message.speaker.name, messageId: message.id }]
		});
	});
	return turns;
}

/** How a recall measurement asks its questions. */
export type Schedule =
	/** As a bot that lived through the conversation: one context and `indexingIdle()` first, a turn of the event loop before each question. */
	| 'steady'
	/** Right after the replay, in a loop of awaits: no turn of the event loop for background work (a script, a bot under load). */
	| 'burst';

/** Characters of an answer turn's message that must reach a context for it to count as found. */
const FOUND_CHARS = 100;

/** Text as an answer turn is looked for in a context: lower case, without white space (a context flattens line breaks). */
function squashed(text: string): string {
	return text.toLowerCase().replace(/[\s\u23CE]+/gu, '');
}

/** Whether an answer turn reaches a context: the first 100 characters of its message, case and white space aside, are in its text. */
export function reachesContext(contextText: string, messageText: string): boolean {
	return squashed(contextText).includes(squashed(messageText.slice(0, FOUND_CHARS)));
}

/** Answer turns found and in all. */
export interface RecallCount {
	found: number;
	answerTurns: number;
}

export interface RecallResult extends RecallCount {
	recall: number;
	/** By question kind. */
	byKind: Record<string, RecallCount>;
	/** By where the answer turn sits in its conversation: its first, middle and last third of messages. */
	byThird: [RecallCount, RecallCount, RecallCount];
	/** Tokens a full history of the conversation would take. */
	fullHistoryTokens: number;
	maxContextTokens: number;
}

/** Asks every question after the last session (see {@link Schedule}) and counts the answer turns that reach each context. */
export async function measureRecall(
	engine: MemoryEngine,
	fixture: ConversationFixture,
	tokenBudget: number,
	schedule: Schedule = 'steady',
	asker = fixture.speakers[0]!.id
): Promise<RecallResult> {
	const messages = fixtureMessages(fixture);
	const byId = new Map(messages.map((message, place) => [message.id, { message, third: Math.min(2, Math.floor((3 * place) / messages.length)) }]));
	const persona = fixture.speakers.find((speaker) => speaker.role === 'persona');
	const request = (query: string) => ({
		userId: asker,
		serverId: SERVER_ID,
		channelId: CHANNEL_ID,
		personaId: PERSONA_ID,
		...(persona ? { personaName: persona.name } : {}),
		query,
		tokenBudget
	});
	const result: RecallResult = {
		found: 0,
		answerTurns: 0,
		recall: 0,
		byKind: {},
		byThird: [
			{ found: 0, answerTurns: 0 },
			{ found: 0, answerTurns: 0 },
			{ found: 0, answerTurns: 0 }
		],
		fullHistoryTokens: countTokens(messages.map((message) => `${message.speaker.name}: ${message.text}`).join('\n')),
		maxContextTokens: 0
	};
	if (schedule === 'steady') {
		// The archive's index whole, as a bot that lived through the conversation has it.
		await engine.buildContext(request(''));
		await engine.indexingIdle();
	}
	for (const question of fixture.questions) {
		// In steady state each question comes as a Discord event of its own, in a turn of the event loop of its own.
		if (schedule === 'steady') await nextTurn();
		const context = await engine.buildContext(request(question.question));
		result.maxContextTokens = Math.max(result.maxContextTokens, context.tokens);
		result.byKind[question.kind] ??= { found: 0, answerTurns: 0 };
		const kind = result.byKind[question.kind]!;
		for (const id of question.answerTurnIds) {
			const { message, third } = byId.get(id)!;
			const found = reachesContext(context.text, message.text) ? 1 : 0;
			for (const count of [result, kind, result.byThird[third]!]) {
				count.answerTurns++;
				count.found += found;
			}
		}
	}
	if (schedule === 'steady') await nextTurn();
	result.recall = result.found / result.answerTurns;
	return result;
}

/** The first version such a plugin would ship: keyword overlap, top 3, 150-character snippets. */
export function keywordTop3Recall(fixture: ConversationFixture): number {
	const messages = fixtureMessages(fixture);
	const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9']+/g) ?? []);
	let total = 0;
	let found = 0;
	for (const question of fixture.questions) {
		const query = words(question.question);
		const top = messages
			.map((message) => ({ message, overlap: [...words(message.text.slice(0, 150))].filter((word) => query.has(word)).length }))
			.sort((a, b) => b.overlap - a.overlap)
			.slice(0, 3)
			.map(({ message }) => message.id);
		total += question.answerTurnIds.length;
		found += question.answerTurnIds.filter((id) => top.includes(id)).length;
	}
	return found / total;
}

/** A plain BM25 over all turns (no stemming, no stop words), best hits packed whole into `tokenBudget`. */
export function plainBm25Recall(fixture: ConversationFixture, tokenBudget: number): number {
	const { found, answerTurns } = plainBm25Found(fixture, tokenBudget);
	return found / answerTurns;
}

/**
 * {@link plainBm25Recall} as counts: answer turns found, and answer turns in all. Lines are counted exactly (gpt-tokenizer
 * itself: the engine's count degrades to bytes past its allowance in a loop that lets no turn of the event loop pass).
 */
export function plainBm25Found(fixture: ConversationFixture, tokenBudget: number): RecallCount {
	const messages = fixtureMessages(fixture);
	const index = new MiniSearch<FixtureMessage>({ fields: ['text'], idField: 'id' });
	index.addAll(messages);
	const byId = new Map(messages.map((message) => [message.id, message]));
	let total = 0;
	let found = 0;
	for (const question of fixture.questions) {
		let used = 0;
		const chosen = new Set<string>();
		for (const hit of index.search(question.question)) {
			const message = byId.get(hit.id as string)!;
			const cost = countTokens(`${message.speaker.name}: ${message.text}`) + 1;
			if (used + cost > tokenBudget) continue;
			used += cost;
			chosen.add(message.id);
		}
		total += question.answerTurnIds.length;
		found += question.answerTurnIds.filter((id) => chosen.has(id)).length;
	}
	return { found, answerTurns: total };
}
