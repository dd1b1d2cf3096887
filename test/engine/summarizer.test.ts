import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryConfig, type MemoryEngine } from '../../src';
import { CLOSE_GRACE_MS } from '../../src/engine/summaries/BackgroundSummarizer';
import { backends, openEngine, TestClock } from '../support/backends';
import { ChatEndpoint, citeAll, type Script } from '../support/chat-endpoint';
import { StoreInspection } from '../support/store-inspection';
import { ask, CHANNEL, GUILD, MAYA, OTHER_CHANNEL, THEO, turn } from '../support/turns';

const DAY = 86_400_000;

/** Warnings the engine logs, kept for the assertions instead of the console. */
class RecordingLogger {
	public readonly warnings: string[] = [];
	public readonly errors: unknown[][] = [];

	public warn(...values: unknown[]): void {
		this.warnings.push(values.map(String).join(' '));
	}

	public error(...values: unknown[]): void {
		this.errors.push(values);
	}
}

describe.each(backends)('background summarizer on $name', (backend) => {
	const clock = new TestClock();
	let endpoint: ChatEndpoint;
	let engine: MemoryEngine;
	let inspect: StoreInspection;
	let logger: RecordingLogger;
	let dispose: (() => Promise<void>) | undefined;
	let turns = 0;

	beforeAll(async () => {
		endpoint = await ChatEndpoint.start();
	});
	afterAll(async () => {
		await endpoint?.stop();
	});

	/**
	 * An engine whose crude window holds one exchange, so each turn folds the previous exchange (two
	 * event lines) into the digest, and a conversation is summarized once 4 lines wait: at its 3rd turn.
	 */
	async function open(config: Partial<MemoryConfig> = {}) {
		logger = new RecordingLogger();
		const opened = await openEngine(backend, {
			now: clock.now,
			logger,
			config: {
				maxMessagesPerChannel: 2,
				llmBaseUrl: endpoint.baseUrl,
				llmApiKey: 'sk-test',
				llmMinNewDigestLines: 4,
				llmPriceInputPerMTok: 0.15,
				llmPriceOutputPerMTok: 0.6,
				...config
			}
		});
		engine = opened.engine;
		dispose = opened.dispose;
		inspect = await StoreInspection.open({ storeUrl: opened.storeUrl, namespace: opened.namespace });
	}

	beforeEach(({ skip }) => {
		if (backend.skipReason) skip(backend.skipReason);
		clock.current = new TestClock().current;
		endpoint.requests.length = 0;
		endpoint.events.length = 0;
		endpoint.script(citeAll);
		turns = 0;
	});
	afterEach(async () => {
		await inspect?.close().catch(() => undefined);
		await dispose?.();
		dispose = undefined;
	});

	/** `count` turns in `channelId`, a minute apart, each with a date and a number so the digest keeps them as events. */
	async function talk(count: number, channelId = CHANNEL) {
		for (let index = 0; index < count; index++) {
			turns++;
			await engine.recordTurn(
				turn({
					channelId,
					text: `Order ${turns}: ship ${turns * 10} boxes to Porto on June ${turns}.`,
					reply: `Booked ${turns * 10} boxes for June ${turns}.`
				})
			);
			clock.advance(60_000);
		}
		await engine.summarizerIdle();
	}

	const liveEntry = (channelId = CHANNEL) => inspect.serverEntry(GUILD, channelId, 'sol').read();
	const summaryBlock = async () => (await engine.buildContext(ask())).blocks.find((block) => block.tier === 'summary');

	describe('GIVEN the endpoint answers with a summary citing every source', () => {
		beforeEach(() => open());

		it('THEN the summary is stored with its sources, model, tokens and cost, and the summary tier serves it', async () => {
			await talk(3);
			expect(endpoint.requests).toHaveLength(1);
			const [request] = endpoint.requests;
			expect(request).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer sk-test', body: { model: 'gpt-4o-mini' } });
			const entry = (await liveEntry())!;
			const digestIds = entry.digest!.flatMap((line) => line.sourceIds);
			expect(request!.ids.sort()).toEqual([...digestIds].sort());
			// The sources are the archived messages, whole, each with its time and speaker.
			expect(request!.body.messages[1]!.content).toContain('2026-03-02 [18:00] Maya: Order 1: ship 10 boxes to Porto on June 1.');

			expect(entry.backgroundSummary).toEqual({
				text: 'Fact 1 of the talk.\nFact 2 of the talk.\nFact 3 of the talk.\nFact 4 of the talk.',
				sourceIds: request!.ids,
				authorIds: expect.arrayContaining([MAYA.id]),
				coveredThrough: expect.any(Number),
				model: 'gpt-4o-mini',
				inputTokens: 1000,
				outputTokens: 200,
				costUsd: (1000 * 0.15 + 200 * 0.6) / 1_000_000,
				createdAt: clock.current,
				stale: false
			});
			const block = (await summaryBlock())!;
			expect(block.text).toContain('Fact 4 of the talk.');
			expect(block.text).not.toContain('Order 1');
			expect(block.sourceIds).toEqual(expect.arrayContaining(request!.ids));
			expect(engine.stats().summarizer).toMatchObject({
				enabled: true,
				calls: 1,
				successes: 1,
				inputTokens: 1000,
				outputTokens: 200,
				costUsd: (1000 * 0.15 + 200 * 0.6) / 1_000_000
			});
		});

		it('THEN recordTurn returns before the endpoint is asked', async () => {
			for (let index = 0; index < 3; index++) {
				await engine.recordTurn(
					turn({ text: `Order ${index}: ship ${index + 5} boxes on June ${index + 1}.`, reply: `Booked for June ${index + 1}.` })
				);
				endpoint.events.push('recordTurn returned');
				clock.advance(60_000);
			}
			await engine.summarizerIdle();
			expect(endpoint.events).toEqual(['recordTurn returned', 'recordTurn returned', 'recordTurn returned', 'request']);
		});

		it('THEN digest lines written after the summary are served after it, and K more lines summarize again', async () => {
			await talk(3);
			await talk(1);
			expect(endpoint.requests).toHaveLength(1);
			const block = (await summaryBlock())!;
			expect(block.text).toContain('Fact 4 of the talk.');
			expect(block.text).toContain('Order 3: ship 30 boxes');
			await talk(1);
			expect(endpoint.requests).toHaveLength(2);
			expect(endpoint.requests[1]!.ids.length).toBeGreaterThan(endpoint.requests[0]!.ids.length);
		});

		it('WHEN the persona wrote its own summary THEN no call is made: the tool summary wins', async () => {
			await engine.updateShortTermMemory(
				{ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' },
				'Maya ships boxes to Porto.'
			);
			await talk(4);
			expect(endpoint.requests).toHaveLength(0);
		});
	});

	describe('GIVEN the endpoint answers badly', () => {
		beforeEach(() => open({ llmTimeoutMs: 300 }));

		const without =
			(drop: number): Script =>
			(request) => ({
				content: request.ids
					.slice(drop)
					.map((id) => `A fact. [ids: ${id}]`)
					.join('\n')
			});
		it.each<[string, Script, string]>([
			[
				'a line without citation',
				(request) => ({ content: `Maya ships boxes. [ids: ${request.ids.join(', ')}]\nTheo said nothing.` }),
				'rejections.missing-citation'
			],
			[
				'an id it was not given',
				(request) => ({ content: `Maya ships boxes. [ids: ${request.ids.join(', ')}, 123456789]` }),
				'rejections.unknown-id'
			],
			['a source no line cites', without(1), 'rejections.uncovered-source'],
			['malformed JSON', () => ({ body: '{"choices": [' }), 'errors.bad-response'],
			['a 500', () => ({ status: 500, body: '{"error":"boom"}' }), 'errors.http'],
			['no answer within MEMORY_LLM_TIMEOUT_MS', (request) => ({ ...citeAll(request), delayMs: 2000 }), 'errors.timeout']
		])('WHEN it answers %s THEN nothing is stored, it is counted and logged once, and the digest keeps serving', async (_, script, counter) => {
			endpoint.script(script);
			await talk(3);
			expect(endpoint.requests).toHaveLength(1);
			expect((await liveEntry())!.backgroundSummary).toBeUndefined();
			const [group, name] = counter.split('.') as ['rejections' | 'errors', string];
			expect((engine.stats().summarizer[group] as Record<string, number>)[name]).toBe(1);
			expect(engine.stats().summarizer).toMatchObject({ calls: 1, successes: 0 });
			expect(logger.warnings.filter((line) => line.includes('background summary'))).toHaveLength(1);
			const block = (await summaryBlock())!;
			expect(block.text).toContain('Order 1: ship 10 boxes to Porto on June 1.');
			// A failed scope is not tried again on the very next turn.
			await talk(1);
			expect(endpoint.requests).toHaveLength(1);
		});

		it('WHEN it answers 429 with Retry-After THEN the worker waits that long before it calls again', async () => {
			endpoint.script(() => ({ status: 429, headers: { 'retry-after': '1800' }, body: '{"error":"slow down"}' }), citeAll);
			await talk(3);
			expect(endpoint.requests).toHaveLength(1);
			expect(engine.stats().summarizer.errors['rate-limited']).toBe(1);
			await talk(2);
			expect(endpoint.requests).toHaveLength(1);
			clock.advance(1_800_000);
			await talk(1);
			expect(endpoint.requests).toHaveLength(2);
			expect((await liveEntry())!.backgroundSummary?.stale).toBe(false);
		});
	});

	describe('GIVEN daily caps', () => {
		it('WHEN a channel reached MEMORY_LLM_MAX_CALLS_PER_CHANNEL_PER_DAY THEN it waits for the next UTC day', async () => {
			await open({ llmMaxCallsPerChannelPerDay: 1 });
			await talk(3);
			await talk(2);
			expect(endpoint.requests).toHaveLength(1);
			expect(engine.stats().summarizer.capped.channel).toBeGreaterThanOrEqual(1);
			// 18:05 → 00:00 the next day: the entry is still alive, the cap is new.
			clock.current = Math.ceil(clock.current / DAY) * DAY;
			await talk(1);
			expect(endpoint.requests).toHaveLength(2);
		});

		it('WHEN the process reached MEMORY_LLM_MAX_CALLS_PER_DAY THEN no channel is summarized until the next UTC day', async () => {
			await open({ llmMaxCallsPerDay: 1 });
			await talk(3);
			await talk(3, OTHER_CHANNEL);
			expect(endpoint.requests).toHaveLength(1);
			expect(engine.stats().summarizer.capped.process).toBe(1);
			expect((await liveEntry(OTHER_CHANNEL))!.backgroundSummary).toBeUndefined();
			clock.current = Math.ceil(clock.current / DAY) * DAY;
			await talk(1, OTHER_CHANNEL);
			expect(endpoint.requests).toHaveLength(2);
		});
	});

	describe('GIVEN MEMORY_LLM_BASE_URL is unset', () => {
		it('THEN the endpoint gets no request and the digest serves', async () => {
			await open({ llmBaseUrl: null });
			await talk(6);
			await new Promise((resolve) => setTimeout(resolve, 100));
			expect(endpoint.requests).toHaveLength(0);
			expect(engine.stats().summarizer).toMatchObject({ enabled: false, calls: 0 });
			expect((await summaryBlock())!.text).toContain('# Earlier in this conversation (digest, UTC)');
		});
	});

	describe('GIVEN a stored background summary', () => {
		beforeEach(async () => {
			await open();
			await talk(3);
			expect((await liveEntry())!.backgroundSummary).toBeDefined();
		});

		it.each(['edited', 'deleted'] as const)(
			'WHEN a cited message is %s THEN the summary and the digest line citing it go, the digest serves, and the next summary leaves it out',
			async (kind) => {
				const entry = (await liveEntry())!;
				const cited = entry.digest!.find((line) => line.text.includes('Order 1:'))!.sourceIds[0]!;
				expect(entry.backgroundSummary!.sourceIds).toContain(cited);
				const texts = kind === 'edited' ? { [cited]: 'Order 1: ship 70 boxes to Braga on July 9.' } : undefined;
				const result = await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [cited], kind, texts });
				// A deletion takes Sol's reply to the message too.
				expect(result).toMatchObject({ summariesDropped: 1, archivedMessagesRemoved: kind === 'deleted' ? 2 : 0 });
				expect(result.archivedMessagesEdited).toBe(kind === 'edited' ? 1 : 0);
				expect(result.digestLinesRemoved).toBeGreaterThanOrEqual(1);
				await engine.summarizerIdle();
				// Three lines are left, fewer than MEMORY_LLM_MIN_NEW_DIGEST_LINES: the digest serves, without the changed message.
				expect((await liveEntry())!.backgroundSummary).toBeUndefined();
				const block = (await summaryBlock())!;
				expect(block.text).not.toContain('Fact 1 of the talk.');
				expect(block.text).not.toContain('Order 1: ship 10 boxes');
				expect(block.text).toContain('Order 2: ship 20 boxes');
				expect(engine.stats().summarizer).toMatchObject({ markedStale: 1, calls: 1 });
				await talk(1);
				const rebuilt = (await liveEntry())!.backgroundSummary!;
				expect(rebuilt.sourceIds).not.toContain(cited);
				expect(endpoint.requests.at(-1)!.body.messages[1]!.content).not.toContain('ship 10 boxes');
				if (kind === 'edited') expect(endpoint.requests.at(-1)!.ids).not.toContain(cited);
			}
		);

		it('WHEN an uncited message changes THEN the summary stays', async () => {
			const result = await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: ['999999999999999999'], kind: 'deleted' });
			expect(result).toMatchObject({ summariesDropped: 0, entriesChanged: 0, archivedMessagesRemoved: 0 });
			expect((await liveEntry())!.backgroundSummary?.stale).toBe(false);
		});

		it('WHEN a member whose words it cites clears their memory THEN the summary goes', async () => {
			await engine.clearShortTerm(MAYA.id);
			expect((await liveEntry())?.backgroundSummary).toBeUndefined();
		});

		it('WHEN a member who took no part clears their memory THEN it stays', async () => {
			await engine.clearShortTerm(THEO.id);
			expect((await liveEntry())!.backgroundSummary).toBeDefined();
		});

		it('WHEN a cited member erases everything THEN the summary goes and is counted', async () => {
			const result = await engine.clearAll(MAYA.id);
			expect(result.summariesDropped).toBeGreaterThanOrEqual(1);
			expect((await liveEntry())?.backgroundSummary).toBeUndefined();
		});
	});

	describe('GIVEN a call in flight', () => {
		it('WHEN a cited message is deleted during it THEN its answer is thrown away and the next summary is built without it', async () => {
			await open();
			endpoint.script((request) => ({ ...citeAll(request), delayMs: 300 }), citeAll);
			for (let index = 0; index < 3; index++)
				await engine.recordTurn(
					turn({ text: `Order ${index}: ship ${index + 5} boxes on June ${index + 1}.`, reply: `Booked for June ${index + 1}.` })
				);
			while (endpoint.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
			const deleted = endpoint.requests[0]!.ids[0]!;
			await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [deleted], kind: 'deleted' });
			await engine.summarizerIdle();
			expect(engine.stats().summarizer).toMatchObject({ calls: 1, successes: 0, superseded: 1 });
			expect((await liveEntry())!.backgroundSummary).toBeUndefined();
			// Three digest lines are left: the next turn brings the fourth.
			await engine.recordTurn(turn({ text: 'Order 9: ship 14 boxes on June 9.', reply: 'Booked for June 9.' }));
			await engine.summarizerIdle();
			expect(engine.stats().summarizer).toMatchObject({ calls: 2, successes: 1, superseded: 1 });
			expect(endpoint.requests[1]!.ids).not.toContain(deleted);
			expect((await liveEntry())!.backgroundSummary!.sourceIds).not.toContain(deleted);
		});

		it('WHEN a member it draws on erases everything during it THEN its answer is thrown away', async () => {
			await open();
			endpoint.script((request) => ({ ...citeAll(request), delayMs: 300 }));
			// Theo's turns too, so the conversation outlives Maya's erasure and the answer would have somewhere to land.
			for (let index = 0; index < 3; index++)
				await engine.recordTurn(
					turn({
						who: index === 1 ? THEO : MAYA,
						text: `Order ${index}: ship ${index + 5} boxes on June ${index + 1}.`,
						reply: `Booked for June ${index + 1}.`
					})
				);
			while (endpoint.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
			await engine.clearAll(MAYA.id);
			await engine.summarizerIdle();
			expect(engine.stats().summarizer).toMatchObject({ calls: 1, successes: 0, superseded: 1 });
			expect((await liveEntry())?.backgroundSummary).toBeUndefined();
		});

		it('WHEN the engine closes THEN close waits for it, and aborts it after a short grace', async () => {
			await open({ llmTimeoutMs: 60_000 });
			endpoint.script((request) => ({ ...citeAll(request), delayMs: 30_000 }));
			await talk(2);
			await engine.recordTurn(turn({ text: 'Order 99: ship 990 boxes on June 30.', reply: 'Booked for June 30.' }));
			while (endpoint.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
			const started = Date.now();
			await engine.close();
			expect(Date.now() - started).toBeGreaterThanOrEqual(CLOSE_GRACE_MS - 50);
			expect(Date.now() - started).toBeLessThan(CLOSE_GRACE_MS + 2000);
			expect(engine.stats().summarizer.errors.aborted).toBe(1);
		});
	});
});
