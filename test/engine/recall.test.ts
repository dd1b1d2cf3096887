import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../../src';
import { backends, openEngine, TestClock } from '../support/backends';
import { fixtureMessages, fixtureTurns, keywordTop3Recall, loadFixture, measureRecall, plainBm25Recall } from '../support/recall';

const fixture = loadFixture();
const messages = fixtureMessages(fixture);

describe('GIVEN the long multi-session conversation fixture', () => {
	const clock = new TestClock(messages[0]!.ts);
	let engine: MemoryEngine;
	let dispose: () => Promise<void>;

	beforeAll(async () => {
		// The fixture spans eleven weeks, so the archive keeps it all; every other setting is the default.
		({ engine, dispose } = await openEngine(backends[0]!, { now: clock.now, config: { archiveRetentionDays: 120 } }));
		for (const turn of fixtureTurns(messages)) {
			clock.current = turn.timestamp!;
			await engine.recordTurn(turn);
		}
		clock.current = messages.at(-1)!.ts + 3_600_000;
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
