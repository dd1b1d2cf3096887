/**
 * What a context holds does not depend on how the engine got there: a bot that lived through a conversation (its index
 * whole, the event loop turning between questions), a fresh engine that recorded the conversation in a loop of awaits and
 * is asked right after in another, and an engine restarted on the store, asked the same way, all show each question the
 * same messages. A script, an evaluation and a bot restarted under load ask in loops of awaits, where background indexing
 * never gets its moment; an archive of up to 2,000 messages is therefore indexed whole by its first context.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src';
import { backends, openEngine, TestClock } from '../support/backends';
import { generateChats } from '../support/chats/generate';
import { CHANNEL_ID, fixtureMessages, measureRecall, PERSONA_ID, replayConversation, SERVER_ID } from '../support/recall';

const [chat] = generateChats(1);
const conversation = chat!;
const messages = fixtureMessages(conversation);
const config = { archiveRetentionDays: 3_650 };

/** The context of each question, asked in a loop of awaits: no turn of the event loop between them. */
async function contextsOf(engine: MemoryEngine): Promise<string[]> {
	const texts: string[] = [];
	for (const question of conversation.questions) {
		const context = await engine.buildContext({
			userId: conversation.speakers[0]!.id,
			serverId: SERVER_ID,
			channelId: CHANNEL_ID,
			personaId: PERSONA_ID,
			personaName: conversation.speakers[1]!.name,
			query: question.question,
			tokenBudget: 1_500
		});
		texts.push(context.text);
	}
	return texts;
}

describe('GIVEN a chat-like conversation of some 1,100 short messages over three weeks', () => {
	const clock = new TestClock(messages[0]!.ts);
	let steady: string[];
	let steadyRecall: number;
	let engine: MemoryEngine;
	let dispose: () => Promise<void>;

	beforeAll(async () => {
		({ engine, dispose } = await openEngine(backends[0]!, { now: clock.now, config }));
		await replayConversation(engine, conversation, (ts) => (clock.current = ts));
		steadyRecall = (await measureRecall(engine, conversation, 1_500, 'steady')).recall;
		steady = await contextsOf(engine);
	}, 120_000);
	afterAll(() => dispose());

	it('has more messages than the newest chunks a first context of a large archive is served from', () => {
		expect(messages.length).toBeGreaterThan(1_024);
		expect(messages.length).toBeLessThanOrEqual(2_000);
		expect(steadyRecall).toBeGreaterThan(0.5);
	});

	it('WHEN a fresh engine records it in a loop of awaits and is asked right after THEN every context is the steady one', async () => {
		const burstClock = new TestClock(messages[0]!.ts);
		const fresh = await openEngine(backends[0]!, { now: burstClock.now, config });
		try {
			await replayConversation(fresh.engine, conversation, (ts) => (burstClock.current = ts));
			const burst = await contextsOf(fresh.engine);
			expect(burst.filter((text, index) => text !== steady[index]).length).toBe(0);
			expect((await measureRecall(fresh.engine, conversation, 1_500, 'burst')).recall).toBe(steadyRecall);
		} finally {
			await fresh.dispose();
		}
	}, 120_000);

	it('WHEN the engine is restarted on its store and asked in a loop of awaits THEN every context is the steady one', async () => {
		const restartClock = new TestClock(messages[0]!.ts);
		const first = await openEngine(backends[0]!, { now: restartClock.now, config });
		await replayConversation(first.engine, conversation, (ts) => (restartClock.current = ts));
		await first.engine.close();
		const restarted = await MemoryEngine.open({
			now: restartClock.now,
			env: {},
			config: { ...config, storeUrl: first.storeUrl, storeNamespace: first.namespace, sweepIntervalMinutes: 0 }
		});
		try {
			const afterRestart = await contextsOf(restarted);
			expect(afterRestart.filter((text, index) => text !== steady[index]).length).toBe(0);
		} finally {
			await restarted.close();
			await first.dispose();
		}
	}, 120_000);
});
