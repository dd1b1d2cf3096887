import { fixtureMessages, fixtureTurns, keywordTop3Recall, loadFixture, measureRecall, plainBm25Recall } from '../../test/support/recall';
import { sqliteStore } from '../backends';
import { count } from '../format';
import { progress } from '../log';
import type { BenchPlan } from '../options';
import type { RecallResult } from '../results';
import { BenchClock, openEngine } from '../workload';

/**
 * Section 5 (SQLite): the long-conversation fixture replayed as test/engine/recall.test.ts does
 * (a 120-day archive, the clock at each turn's time, then an hour after the last message), and the
 * share of answer turns that reach the context at each budget.
 */
export async function runRecall(plan: BenchPlan): Promise<RecallResult> {
	const fixture = loadFixture();
	const messages = fixtureMessages(fixture);
	const turns = fixtureTurns(messages);
	const store = sqliteStore();
	const clock = new BenchClock();
	clock.current = messages[0]!.ts;
	const engine = await openEngine(store.storeUrl, clock, { archiveRetentionDays: 120 });
	try {
		progress(
			`recall: replaying ${count(turns.length)} turns of the long-conversation fixture, then ${fixture.questions.length} questions at ` +
				`${plan.recall.budgets.map(count).join(', ')} tokens…`
		);
		for (const turn of turns) {
			clock.current = turn.timestamp!;
			await engine.recordTurn(turn);
		}
		clock.current = messages.at(-1)!.ts + 3_600_000;
		const points: RecallResult['points'] = [];
		let fullHistoryTokens = 0;
		for (const budget of plan.recall.budgets) {
			const measured = await measureRecall(engine, fixture, budget);
			fullHistoryTokens = measured.fullHistoryTokens;
			points.push({
				budget,
				answerTurns: measured.answerTurns,
				found: measured.found,
				recall: measured.recall,
				maxContextTokens: measured.maxContextTokens,
				plainBm25Recall: plainBm25Recall(fixture, budget)
			});
		}
		return {
			messages: messages.length,
			turns: turns.length,
			questions: fixture.questions.length,
			fullHistoryTokens,
			keywordTop3Recall: keywordTop3Recall(fixture),
			points
		};
	} finally {
		await engine.close();
		await store.dispose();
	}
}
