import { generateChats } from '../../test/support/chats/generate';
import { generateConversations } from '../../test/support/conversations/generate';
import { LOCOMO_DEVELOPMENT_FILES, loadLocomo } from '../../test/support/locomo';
import {
	type ConversationFixture,
	fixtureMessages,
	fixtureTurns,
	loadFixture,
	measureRecall,
	plainBm25Found,
	type RecallCount,
	replayConversation
} from '../../test/support/recall';
import { sqliteStore } from '../backends';
import { count } from '../format';
import { progress } from '../log';
import type { BenchPlan } from '../options';
import type { RecallPoint, RecallResult, RecallSetResult } from '../results';
import { BenchClock, openEngine } from '../workload';

/** Every set spans less than this: the archive keeps all of each conversation, as a bot configured for it would. */
const RETENTION_DAYS = 3_650;

/**
 * Section 5 (SQLite): the evaluation sets, each conversation recorded turn by turn into a store of its own (the clock at each
 * turn's time) and asked its questions an hour after its last message, at each budget; an answer turn counts when the first
 * 100 characters of its message, case and white space aside, are in the context. Steady state (the index whole, a turn of
 * the event loop between questions) and right after a burst (a fresh engine for each budget, recording and asking in loops
 * of awaits), next to a plain BM25 packed into the same budget.
 */
export async function runRecall(plan: BenchPlan): Promise<RecallResult> {
	const { budgets, chats, generated, locomo } = plan.recall;
	const sets: RecallSetResult[] = [];
	const skipped: RecallResult['skipped'] = [];
	const locomoSet = locomo === null ? null : loadLocomo(locomo);
	if (locomoSet) sets.push(await measureSet('LoCoMo development half', locomoSet, budgets));
	else
		skipped.push({
			name: 'LoCoMo development half',
			reason:
				locomo === null
					? 'not given (--locomo DIR)'
					: `${locomo} lacks one of ${LOCOMO_DEVELOPMENT_FILES.map((name) => `${name}.json`).join(', ')}`
		});
	sets.push(await measureSet('chat-like set', generateChats(chats), budgets));
	sets.push(await measureSet('long-conversation fixture', [loadFixture()], budgets));
	sets.push(await measureSet('generated set', generateConversations(generated), budgets));
	return { sets, skipped };
}

async function measureSet(name: string, conversations: ConversationFixture[], budgets: number[]): Promise<RecallSetResult> {
	const messages = conversations.reduce((sum, conversation) => sum + fixtureMessages(conversation).length, 0);
	const questions = conversations.reduce((sum, conversation) => sum + conversation.questions.length, 0);
	progress(`recall: ${name}, ${count(messages)} messages in ${conversations.length} conversations, ${questions} questions…`);
	const points: RecallPoint[] = budgets.map((budget) => ({
		budget,
		steady: { found: 0, answerTurns: 0 },
		burst: { found: 0, answerTurns: 0 },
		plainBm25: { found: 0, answerTurns: 0 },
		maxContextTokens: 0,
		byKind: {},
		byThird: [0, 1, 2].map(() => ({ found: 0, answerTurns: 0 }))
	}));
	let fullHistoryTokens = 0;
	for (const conversation of conversations) {
		// Steady: one replay, every budget asked of it.
		await withReplay(conversation, async (engine) => {
			for (const point of points) {
				const measured = await measureRecall(engine, conversation, point.budget, 'steady');
				if (point === points[0]) fullHistoryTokens += measured.fullHistoryTokens;
				add(point.steady, measured);
				point.maxContextTokens = Math.max(point.maxContextTokens, measured.maxContextTokens);
				for (const [kind, counted] of Object.entries(measured.byKind)) add((point.byKind[kind] ??= { found: 0, answerTurns: 0 }), counted);
				measured.byThird.forEach((counted, third) => add(point.byThird[third]!, counted));
			}
		});
		// After a burst: a fresh engine for each budget, since a context's own work would catch the next one up.
		for (const point of points) {
			await withReplay(conversation, async (engine) => add(point.burst, await measureRecall(engine, conversation, point.budget, 'burst')));
			add(point.plainBm25, plainBm25Found(conversation, point.budget));
		}
	}
	return {
		name,
		conversations: conversations.length,
		sessions: conversations.reduce((sum, conversation) => sum + conversation.sessions.length, 0),
		messages,
		turns: conversations.reduce((sum, conversation) => sum + fixtureTurns(fixtureMessages(conversation)).length, 0),
		questions,
		fullHistoryTokens,
		points
	};
}

/** Records `conversation` into a fresh SQLite store, runs `measure` on the engine, and removes the store. */
async function withReplay(
	conversation: ConversationFixture,
	measure: (engine: Awaited<ReturnType<typeof openEngine>>) => Promise<void>
): Promise<void> {
	const store = sqliteStore();
	const clock = new BenchClock();
	const engine = await openEngine(store.storeUrl, clock, { archiveRetentionDays: RETENTION_DAYS });
	try {
		// In a loop of awaits, as a replay or a restarted bot under load records: no turn of the event loop between turns.
		await replayConversation(engine, conversation, (ts) => (clock.current = ts));
		await measure(engine);
	} finally {
		await engine.close();
		await store.dispose();
	}
}

function add(sum: RecallCount, counted: RecallCount): void {
	sum.found += counted.found;
	sum.answerTurns += counted.answerTurns;
}
