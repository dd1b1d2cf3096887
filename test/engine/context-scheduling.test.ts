/**
 * What a context holds does not depend on whether the event loop turned since the last one. The tokenizer's exact work is
 * capped per turn of the event loop (src/engine/format/tokens.ts); a script that asks its questions in a loop of awaits
 * lets no turn pass on SQLite, and each context must still count its lines as one asked alone would.
 *
 * The loop of awaits runs first, while this file's process has counted nothing yet (vitest runs each file in a process
 * of its own state): that is when a context starved of exact counts held fewer lines.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../../src';
import { backends, openEngine, TestClock } from '../support/backends';
import { CHANNEL_ID, fixtureMessages, loadFixture, PERSONA_ID, replayConversation, SERVER_ID } from '../support/recall';

const fixture = loadFixture();
const messages = fixtureMessages(fixture);

describe('GIVEN the long conversation fixture recorded on SQLite', () => {
	const clock = new TestClock(messages[0]!.ts);
	let engine: MemoryEngine;
	let dispose: () => Promise<void>;

	beforeAll(async () => {
		({ engine, dispose } = await openEngine(backends[0]!, { now: clock.now, config: { archiveRetentionDays: 120 } }));
		await replayConversation(engine, fixture, (ts) => (clock.current = ts));
		await engine.buildContext(ask(''));
		await engine.indexingIdle();
	}, 120_000);
	afterAll(() => dispose());

	const ask = (query: string) => ({
		userId: fixture.speakers[0]!.id,
		serverId: SERVER_ID,
		channelId: CHANNEL_ID,
		personaId: PERSONA_ID,
		query,
		tokenBudget: 1_500
	});
	const sourcesOf = (context: Awaited<ReturnType<MemoryEngine['buildContext']>>) =>
		[...new Set(context.blocks.flatMap((block) => block.sourceIds))].sort();

	it('WHEN the questions are asked in a loop of awaits, no turn between them THEN each context holds what it holds a turn apart', async () => {
		const inALoop: string[][] = [];
		for (const question of fixture.questions) inALoop.push(sourcesOf(await engine.buildContext(ask(question.question))));
		const turnApart: string[][] = [];
		for (const question of fixture.questions) {
			await nextTurn();
			turnApart.push(sourcesOf(await engine.buildContext(ask(question.question))));
		}
		const differing = fixture.questions.filter((_, index) => inALoop[index]!.join() !== turnApart[index]!.join());
		expect(differing.map((question) => question.question)).toEqual([]);
	}, 60_000);
});
