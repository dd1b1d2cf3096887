import { register as defaultRegistry, Registry } from 'prom-client';
import { beforeEach, describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS_MS, type MemoryContext, type MemoryEngine, METRIC_NAMES, PrivacyLevel, registerMemoryMetrics } from '../../src';
import { LatencyRecorder, quantile } from '../../src/engine/stats/LatencyRecorder';
import { backends, openEngine, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, CHANNEL, DM_CHANNEL, MAYA, OTHER_CHANNEL, said, THEO, turn } from '../support/turns';

const sqlite = backends[0]!;
const TIERS = ['profile', 'nudge', 'summary', 'relevant', 'recent'] as const;

/** Tokens per tier of the contexts, added up the way the counters must. */
function tokensOf(contexts: MemoryContext[]) {
	const expected = { profile: 0, nudge: 0, summary: 0, relevant: 0, recent: 0, total: 0 };
	for (const context of contexts) {
		for (const block of context.blocks) expected[block.tier] += block.tokens;
		expected.total += context.tokens;
	}
	return expected;
}

/**
 * A scripted sequence: 4 turns captured, 4 skipped (one of each reason), 1 rejected as invalid;
 * 3 contexts built (one with a profile, one after enough turns for the nudge), 1 rejected as invalid.
 */
async function script(engine: MemoryEngine, clock: TestClock): Promise<MemoryContext[]> {
	await engine.updateProfile(MAYA.id, { preferences: { pronouns: 'she/her' }, notes: ['grows tomatoes'] });
	for (const text of ['the harbour at dawn', 'lighthouses in fog', 'ferries to the islands']) {
		await engine.recordTurn(turn({ text, timestamp: clock.current }));
		clock.advance(60_000);
	}
	await engine.recordTurn(turn({ serverId: null, channelId: DM_CHANNEL, text: 'a private thought', timestamp: clock.current }));
	await engine.recordTurn(turn({ isStopResponse: true }));
	await engine.recordTurn(turn({ history: [said(MAYA, '[System: typing]')] }));
	await engine.recordTurn(turn({ who: THEO, privacyLevel: PrivacyLevel.FULL }));
	await engine.recordTurn(turn({ responses: [] }));
	await expect(engine.recordTurn({ userId: '' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
	const contexts = [
		await engine.buildContext(ask({ query: 'harbour' })),
		await engine.buildContext(ask({ channelId: OTHER_CHANNEL, query: 'lighthouses' })),
		await engine.buildContext(ask({ serverId: null, channelId: DM_CHANNEL, query: 'private' }))
	];
	await expect(engine.buildContext({ userId: MAYA.id } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
	return contexts;
}

describe('observability: memory.stats()', () => {
	const clock = new TestClock();
	const under = freshEngineEachTest(sqlite, clock, { refreshCadence: 2 });
	let engine: MemoryEngine;
	beforeEach(() => void ({ engine } = under));

	it('GIVEN a fresh engine THEN every new counter is zero and the histograms are empty', () => {
		const stats = engine.stats();

		expect(stats.tokensInjected).toEqual({ profile: 0, nudge: 0, summary: 0, relevant: 0, recent: 0, total: 0 });
		for (const histogram of [stats.latency.capture, stats.latency.context]) {
			expect(histogram).toEqual({
				boundsMs: [...LATENCY_BUCKETS_MS],
				counts: new Array(LATENCY_BUCKETS_MS.length + 1).fill(0),
				count: 0,
				sumMs: 0,
				p50Ms: null,
				p99Ms: null
			});
		}
	});

	describe('GIVEN a scripted sequence of turns and contexts', () => {
		let contexts: MemoryContext[];
		beforeEach(async () => {
			contexts = await script(engine, clock);
		});

		it('THEN turns captured, skipped by reason and contexts built are counted exactly', () => {
			expect(engine.stats()).toMatchObject({
				turnsRecorded: 4,
				turnsSkipped: { 'stop-response': 1, 'empty-history': 1, 'privacy-full': 1, 'no-response': 1 },
				turnsFailed: 0,
				contextsBuilt: 3,
				contextsFailed: 0
			});
		});

		it('THEN the tokens injected are the sum of the blocks per tier, and the total the sum of the contexts', () => {
			const expected = tokensOf(contexts);
			const injected = engine.stats().tokensInjected;

			expect(injected).toEqual(expected);
			// The script reaches the tiers an operator watches most.
			for (const tier of ['profile', 'nudge', 'recent'] as const) expect(injected[tier], tier).toBeGreaterThan(0);
			expect(injected.total).toBeGreaterThanOrEqual(TIERS.reduce((sum, tier) => sum + injected[tier], 0));
		});

		it('THEN each histogram counts every call, and its buckets add up to its count', () => {
			const { capture, context } = engine.stats().latency;

			// 8 turns and 1 invalid one; 3 contexts and 1 invalid request.
			expect(capture.count).toBe(9);
			expect(context.count).toBe(4);
			for (const histogram of [capture, context]) {
				expect(histogram.counts).toHaveLength(histogram.boundsMs.length + 1);
				expect(histogram.counts.reduce((sum, count) => sum + count, 0)).toBe(histogram.count);
				expect(histogram.sumMs).toBeGreaterThan(0);
				expect(histogram.p50Ms).toBeGreaterThan(0);
				expect(histogram.p99Ms).toBeGreaterThanOrEqual(histogram.p50Ms!);
				expect(histogram.p99Ms).toBeLessThanOrEqual(LATENCY_BUCKETS_MS.at(-1)!);
			}
		});

		it('THEN the snapshot is plain JSON-able data, and a copy the engine does not change', async () => {
			const stats = engine.stats();

			expect(JSON.parse(JSON.stringify(stats))).toEqual(stats);
			await engine.recordTurn(turn({ text: 'one more' }));
			expect(stats.turnsRecorded).toBe(4);
			expect(stats.latency.capture.count).toBe(9);
		});

		it('WHEN the engine is closed THEN a refused call is not timed: it did no work', async () => {
			await engine.close();
			await expect(engine.recordTurn(turn())).rejects.toMatchObject({ code: 'CLOSED' });
			expect(engine.stats().latency.capture.count).toBe(9);
		});
	});
});

describe('observability: latency buckets', () => {
	it('GIVEN observations THEN each lands in the first bucket whose bound holds it, the slowest past the last bound', () => {
		const recorder = new LatencyRecorder();
		for (const ms of [0.1, 0.25, 0.3, 7, 1000, 1000.5, 60_000]) recorder.observe(ms);
		const { counts, count, sumMs } = recorder.snapshot();

		expect(counts[0]).toBe(2); // ≤ 0.25
		expect(counts[1]).toBe(1); // ≤ 0.5
		expect(counts[LATENCY_BUCKETS_MS.indexOf(10)]).toBe(1);
		expect(counts[LATENCY_BUCKETS_MS.indexOf(1000)]).toBe(1);
		expect(counts.at(-1)).toBe(2);
		expect(count).toBe(7);
		expect(sumMs).toBeCloseTo(0.1 + 0.25 + 0.3 + 7 + 1000 + 1000.5 + 60_000);
	});

	it('GIVEN bucket counts THEN quantiles interpolate inside the bucket, as Prometheus does', () => {
		const counts = new Array(LATENCY_BUCKETS_MS.length + 1).fill(0);
		// 100 calls between 1 and 2 ms.
		counts[LATENCY_BUCKETS_MS.indexOf(2)] = 100;

		expect(quantile(counts, 0.5)).toBeCloseTo(1.5);
		expect(quantile(counts, 0.99)).toBeCloseTo(1.99);
		expect(quantile(new Array(counts.length).fill(0), 0.5)).toBeNull();
		counts[counts.length - 1] = 1000;
		expect(quantile(counts, 0.99)).toBe(1000);
	});
});

describe('observability: Prometheus metrics through prom-client', () => {
	const clock = new TestClock();
	const under = freshEngineEachTest(sqlite, clock, { refreshCadence: 2 });
	let engine: MemoryEngine;
	beforeEach(() => void ({ engine } = under));

	/** The value of one sample line of the registry's text. */
	async function sample(registry: Registry, line: string): Promise<number | undefined> {
		const text = await registry.metrics();
		const found = text.split('\n').find((candidate) => candidate.startsWith(`${line} `));
		return found === undefined ? undefined : Number(found.slice(line.length + 1));
	}

	it('GIVEN an engine registered on a registry WHEN turns and contexts happen THEN the scrape shows the counters and histograms', async () => {
		const registry = new Registry();
		const unregister = await registerMemoryMetrics(engine, { registry });
		const contexts = await script(engine, clock);
		const tokens = tokensOf(contexts);

		expect(await sample(registry, 'sapphire_memory_turns_recorded_total')).toBe(4);
		for (const reason of ['stop-response', 'empty-history', 'privacy-full', 'no-response'])
			expect(await sample(registry, `sapphire_memory_turns_skipped_total{reason="${reason}"}`)).toBe(1);
		expect(await sample(registry, 'sapphire_memory_turns_failed_total')).toBe(0);
		expect(await sample(registry, 'sapphire_memory_contexts_built_total')).toBe(3);
		expect(await sample(registry, 'sapphire_memory_contexts_failed_total')).toBe(0);
		for (const tier of TIERS) expect(await sample(registry, `sapphire_memory_context_tokens_total{tier="${tier}"}`), tier).toBe(tokens[tier]);
		expect(await sample(registry, 'sapphire_memory_store_up')).toBe(1);
		expect(await sample(registry, 'sapphire_memory_store_unavailable_calls_total')).toBe(0);
		expect(await sample(registry, 'sapphire_memory_capture_duration_seconds_count')).toBe(9);
		expect(await sample(registry, 'sapphire_memory_capture_duration_seconds_bucket{le="+Inf"}')).toBe(9);
		expect(await sample(registry, 'sapphire_memory_context_duration_seconds_count')).toBe(4);
		expect(await sample(registry, 'sapphire_memory_capture_duration_seconds_sum')).toBeCloseTo(engine.stats().latency.capture.sumMs / 1000, 6);
		// Buckets are cumulative and in seconds.
		const buckets = (await registry.metrics()).split('\n').filter((line) => line.startsWith('sapphire_memory_context_duration_seconds_bucket'));
		expect(buckets[0]).toMatch(/^sapphire_memory_context_duration_seconds_bucket\{le="0\.00025"\} \d+$/);
		const values = buckets.map((line) => Number(line.split(' ')[1]));
		expect(values).toEqual([...values].sort((a, b) => a - b));
		expect(await registry.metrics()).toContain('# TYPE sapphire_memory_capture_duration_seconds histogram');

		unregister!();
		for (const name of METRIC_NAMES) expect(registry.getSingleMetric(name), name).toBeUndefined();
	});

	it('GIVEN two engines on one registry (two clients in one process) THEN registering again does not throw and their counts add up', async () => {
		const registry = new Registry();
		const other = await openEngine(sqlite, { config: { sweepIntervalMinutes: 0 } });
		try {
			const first = await registerMemoryMetrics(engine, { registry });
			const second = await registerMemoryMetrics(other.engine, { registry });
			await engine.recordTurn(turn({ text: 'from the first client' }));
			await other.engine.recordTurn(turn({ text: 'from the second client' }));
			await other.engine.recordTurn(turn({ text: 'and again' }));

			expect(await sample(registry, 'sapphire_memory_turns_recorded_total')).toBe(3);
			expect(await sample(registry, 'sapphire_memory_capture_duration_seconds_count')).toBe(3);

			// A hot reload: the first client goes, the second stays.
			first!();
			expect(await sample(registry, 'sapphire_memory_turns_recorded_total')).toBe(2);
			second!();
			expect(await registry.metrics()).not.toContain('sapphire_memory_');
		} finally {
			await other.dispose();
		}
	});

	it('GIVEN the host cleared its registry THEN registering again puts the metrics back', async () => {
		const registry = new Registry();
		await registerMemoryMetrics(engine, { registry });
		registry.clear();
		const unregister = await registerMemoryMetrics(engine, { registry });

		expect(await sample(registry, 'sapphire_memory_turns_recorded_total')).toBe(0);
		unregister!();
	});

	it('GIVEN no registry THEN the metrics go to prom-client’s default registry', async () => {
		const unregister = await registerMemoryMetrics(engine);
		try {
			await engine.recordTurn(turn());
			expect(await defaultRegistry.getSingleMetricAsString('sapphire_memory_turns_recorded_total')).toContain(
				'sapphire_memory_turns_recorded_total 1'
			);
		} finally {
			unregister!();
		}
		expect(defaultRegistry.getSingleMetric('sapphire_memory_turns_recorded_total')).toBeUndefined();
	});
});
