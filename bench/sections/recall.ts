import { generateConversations } from '../../test/support/conversations/generate';
import {
	type ConversationFixture,
	fixtureMessages,
	fixtureTurns,
	keywordTop3Recall,
	loadFixture,
	measureRecall,
	plainBm25Found,
	replayConversation
} from '../../test/support/recall';
import { sqliteStore } from '../backends';
import { count } from '../format';
import { progress } from '../log';
import type { BenchPlan } from '../options';
import type { RecallPoint, RecallResult, RecallSetResult } from '../results';
import { BenchClock, openEngine } from '../workload';

/**
 * Section 5 (SQLite): two evaluation sets replayed as test/engine/recall.test.ts does (each conversation
 * into its own store, the clock at each turn's time, then an hour after its last message), and the share of
 * answer turns that reach the context at each budget, next to a plain BM25 packed into the same budget.
 */
export async function runRecall(plan: BenchPlan): Promise<RecallResult> {
	return {
		sets: [
			await measureSet('long-conversation fixture', [loadFixture()], 120, plan.recall.budgets),
			await measureSet('generated set', generateConversations(), 400, plan.recall.budgets)
		]
	};
}

async function measureSet(name: string, conversations: ConversationFixture[], retentionDays: number, budgets: number[]): Promise<RecallSetResult> {
	const messages = conversations.flatMap((conversation) => fixtureMessages(conversation));
	const questions = conversations.reduce((sum, conversation) => sum + conversation.questions.length, 0);
	progress(`recall: ${name}, ${count(messages.length)} messages in ${conversations.length} conversations, ${questions} questions…`);
	const points: RecallPoint[] = budgets.map((budget) => ({
		budget,
		answerTurns: 0,
		found: 0,
		recall: 0,
		maxContextTokens: 0,
		plainBm25Recall: 0,
		byKind: {}
	}));
	let turns = 0;
	let fullHistoryTokens = 0;
	let keywordFound = 0;
	let bm25Found = points.map(() => 0);
	for (const conversation of conversations) {
		turns += fixtureTurns(fixtureMessages(conversation)).length;
		const store = sqliteStore();
		const clock = new BenchClock();
		const engine = await openEngine(store.storeUrl, clock, { archiveRetentionDays: retentionDays });
		try {
			await replayConversation(engine, conversation, (ts) => (clock.current = ts));
			for (const point of points) {
				const measured = await measureRecall(engine, conversation, point.budget);
				fullHistoryTokens += point === points[0] ? measured.fullHistoryTokens : 0;
				point.answerTurns += measured.answerTurns;
				point.found += measured.found;
				point.maxContextTokens = Math.max(point.maxContextTokens, measured.maxContextTokens);
				for (const [kind, { found, answerTurns }] of Object.entries(measured.byKind)) {
					point.byKind[kind] ??= { found: 0, answerTurns: 0 };
					const sum = point.byKind[kind]!;
					sum.found += found;
					sum.answerTurns += answerTurns;
				}
				if (point === points[0]) keywordFound += keywordTop3Recall(conversation) * measured.answerTurns;
			}
			bm25Found = bm25Found.map((found, index) => found + plainBm25Found(conversation, points[index]!.budget).found);
		} finally {
			await engine.close();
			await store.dispose();
		}
	}
	points.forEach((point, index) => {
		point.recall = point.found / point.answerTurns;
		point.plainBm25Recall = bm25Found[index]! / point.answerTurns;
	});
	return {
		name,
		conversations: conversations.length,
		sessions: conversations.reduce((sum, conversation) => sum + conversation.sessions.length, 0),
		messages: messages.length,
		turns,
		questions,
		fullHistoryTokens,
		keywordTop3Recall: keywordFound / points[0]!.answerTurns,
		points
	};
}
