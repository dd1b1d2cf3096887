import { describe, expect, it } from 'vitest';
import { MemoryConfigSchema, MemoryEngine, MemoryEnvironment, resolveConfig } from '../../src';

describe('GIVEN no environment', () => {
	it('THEN every setting has the documented default', () => {
		expect(resolveConfig({}, {})).toEqual({
			ttlHours: 12,
			summaryTtlHours: 24,
			maxMessagesPerChannel: 10,
			maxOtherChannels: 3,
			crudeMessageCount: 6,
			maxSummaryLength: 1500,
			storeUrl: 'sqlite://./data/memory.sqlite',
			storeNamespace: 'memory',
			contextTokenBudget: 1500,
			archiveRetentionDays: 30,
			sweepIntervalMinutes: 60,
			refreshCadence: 5,
			llmBaseUrl: null,
			llmApiKey: null,
			llmModel: 'gpt-4o-mini',
			llmTimeoutMs: 20_000,
			llmMaxCallsPerChannelPerDay: 24,
			llmMaxCallsPerDay: 500,
			llmMinNewDigestLines: 4,
			llmPriceInputPerMTok: 0,
			llmPriceOutputPerMTok: 0
		});
	});

	it('THEN the zod schema accepts the defaults', () => {
		expect(MemoryConfigSchema.safeParse(resolveConfig({}, {})).success).toBe(true);
	});
});

describe('GIVEN environment variables', () => {
	it('THEN they are read and coerced', () => {
		const config = resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: '6', MEMORY_CONTEXT_TOKEN_BUDGET: ' 800 ', MEMORY_STORE_URL: 'redis://127.0.0.1:6379' });
		expect(config).toMatchObject({ ttlHours: 6, contextTokenBudget: 800, storeUrl: 'redis://127.0.0.1:6379' });
	});

	it('THEN options passed in override them', () => {
		expect(resolveConfig({ contextTokenBudget: 3000 }, { MEMORY_CONTEXT_TOKEN_BUDGET: '800' }).contextTokenBudget).toBe(3000);
	});

	it.each([
		['SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL', 'ten', 'a whole number from 1 to 200'],
		['SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL', '0', 'a whole number from 1 to 200'],
		['MEMORY_CONTEXT_TOKEN_BUDGET', '12.5', 'a whole number of tokens from 50 to 200000'],
		['MEMORY_ARCHIVE_RETENTION_DAYS', '-1', 'a number of days from 0 (archive off) to 3650'],
		['MEMORY_SWEEP_INTERVAL_MINUTES', '10081', 'a number of minutes from 0 (no automatic sweep) to 10080'],
		['MEMORY_STORE_URL', 'mysql://localhost', 'a URL starting with sqlite://'],
		['SHORT_TERM_MEMORY_TTL_HOURS', 'Infinity', 'a number of hours'],
		['MEMORY_LLM_BASE_URL', '127.0.0.1:8080/v1', 'an http:// or https:// base URL'],
		['MEMORY_LLM_TIMEOUT_MS', '50', 'a whole number of milliseconds from 100 to 600000'],
		['MEMORY_LLM_MAX_CALLS_PER_DAY', '-5', 'a whole number of calls from 0 to 10000000'],
		['MEMORY_LLM_PRICE_INPUT_PER_MTOK', 'free', 'US dollars per million input tokens']
	])('WHEN %s=%s THEN start-up stops naming the variable, the value and the accepted range', (name, value, accepts) => {
		expect(() => resolveConfig({}, { [name]: value })).toThrowError(expect.objectContaining({ code: 'INVALID_CONFIG' }));
		try {
			resolveConfig({}, { [name]: value });
		} catch (error) {
			expect((error as Error).message).toContain(`${name}="${value}"`);
			expect((error as Error).message).toContain(accepts);
		}
	});

	it('WHEN the summary TTL is shorter than the message TTL THEN start-up stops and says why', () => {
		expect(() => resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: '30' })).toThrow(/SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS=24 is below SHORT_TERM_MEMORY_TTL_HOURS=30/);
	});

	it('WHEN MemoryEngine.open gets a bad value THEN it rejects before touching any store', async () => {
		await expect(MemoryEngine.open({ env: { MEMORY_REFRESH_CADENCE: 'often' } })).rejects.toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('MEMORY_REFRESH_CADENCE="often"') });
	});

	it('WHEN the store cannot be reached THEN open rejects with STORE_UNAVAILABLE', async () => {
		await expect(MemoryEngine.open({ env: {}, storeUrl: 'redis://127.0.0.1:1' })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
	});

	it('THEN every variable documented in the README is one the engine reads', async () => {
		const { readFileSync } = await import('node:fs');
		const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
		for (const name of Object.keys(MemoryEnvironment)) expect(readme).toContain(`\`${name}\``);
	});
});
