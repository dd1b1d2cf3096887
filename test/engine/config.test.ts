import { describe, expect, it } from 'vitest';
import { MemoryConfigSchema, MemoryEngine, MemoryEnvironment, resolveConfig } from '../../src/engine';

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
			storeTimeoutMs: 2000,
			sqliteSynchronous: 'normal',
			sqliteRewriteSeconds: 60,
			sqliteDriver: 'better-sqlite3',
			serverPurgeGraceHours: 0,
			forgetMembersWhoLeave: false,
			startWithoutStore: false,
			encryptionKey: null,
			encryptionPreviousKeys: null,
			contextTokenBudget: 1500,
			archiveRetentionDays: 30,
			indexCacheMb: 32,
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
		const config = resolveConfig(
			{},
			{ SHORT_TERM_MEMORY_TTL_HOURS: '6', MEMORY_CONTEXT_TOKEN_BUDGET: ' 800 ', MEMORY_STORE_URL: 'redis://127.0.0.1:6379' }
		);
		expect(config).toMatchObject({ ttlHours: 6, contextTokenBudget: 800, storeUrl: 'redis://127.0.0.1:6379' });
	});

	it('THEN options passed in override them', () => {
		expect(resolveConfig({ contextTokenBudget: 3000 }, { MEMORY_CONTEXT_TOKEN_BUDGET: '800' }).contextTokenBudget).toBe(3000);
	});

	it.each([
		['SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL', 'ten', 'a whole number from 1 to 200'],
		['SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL', '0', 'a whole number from 1 to 200'],
		['MEMORY_CONTEXT_TOKEN_BUDGET', '12.5', 'a whole number of tokens from 50 to 16000'],
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

	it('WHEN the summary TTL is set shorter than the message TTL THEN start-up stops and says why', () => {
		expect(() => resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: '30', SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: '24' })).toThrow(
			/SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS=24 is below SHORT_TERM_MEMORY_TTL_HOURS=30/
		);
	});

	it('WHEN several values are bad THEN one error names every one of them, with what each accepts', () => {
		const env = { MEMORY_CONTEXT_TOKEN_BUDGET: 'lots', MEMORY_STORE_URL: 'mysql://db', SHORT_TERM_MEMORY_TTL_HOURS: '0' };
		expect(() => resolveConfig({}, env)).toThrowError(
			[
				'Invalid memory configuration, 3 settings:',
				'  SHORT_TERM_MEMORY_TTL_HOURS="0"; expected a number of hours from 0.01 to 8760.',
				'  MEMORY_STORE_URL="mysql://db"; expected a URL starting with sqlite://, redis://, rediss://, postgres:// or postgresql://.',
				'  MEMORY_CONTEXT_TOKEN_BUDGET="lots"; expected a whole number of tokens from 50 to 16000.'
			].join('\n')
		);
	});

	it.each(['0x10', '0X1A', '0b11', '0o17', '1e1', '1E2', '5e-1', 'Infinity', '.', '1_000'])(
		'WHEN a number is spelt %j THEN every number setting refuses it, as the accepted ranges say plain numbers',
		(spelling) => {
			const numberSettings = Object.entries(MemoryEnvironment).filter(([, spec]) => typeof spec.default === 'number');
			expect(numberSettings.length).toBeGreaterThan(15);
			for (const [name] of numberSettings) {
				expect(() => resolveConfig({}, { SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: '8760', [name]: spelling }), name).toThrow(
					`${name}=${JSON.stringify(spelling)}`
				);
			}
		}
	);

	it.each([
		['+5', 5],
		['10.', 10],
		['.5', 0.5],
		['007', 7]
	])('WHEN a number is spelt %j THEN it is read as %d', (spelling, value) => {
		expect(resolveConfig({}, { SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: '8760', SHORT_TERM_MEMORY_TTL_HOURS: spelling }).ttlHours).toBe(value);
	});

	it('WHEN a caller labels the options it passes THEN the error names the label, as the CLI names --store', () => {
		expect(() => resolveConfig({ storeUrl: 'mysql://db' }, {}, { storeUrl: '--store' })).toThrow(
			'Invalid memory configuration: --store="mysql://db" (MEMORY_STORE_URL); expected a URL'
		);
		expect(() => resolveConfig({ storeUrl: 'mysql://db' }, {})).toThrow('option memory.storeUrl="mysql://db" (MEMORY_STORE_URL)');
	});

	it('WHEN MemoryEngine.open gets several bad values THEN it rejects naming each, before touching any store', async () => {
		const env = { MEMORY_REFRESH_CADENCE: 'often', MEMORY_INDEX_CACHE_MB: '0x20', MEMORY_ARCHIVE_RETENTION_DAYS: '3e1' };
		const opening = MemoryEngine.open({ env, storeUrl: 'redis://127.0.0.1:1' });
		await expect(opening).rejects.toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('3 settings') });
		for (const [name, value] of Object.entries(env)) await expect(opening).rejects.toThrow(`${name}="${value}"`);
	});

	it('WHEN MEMORY_* or SHORT_TERM_MEMORY_* variables are not settings THEN MemoryEngine.open warns about each with the closest name', async () => {
		const warnings: string[] = [];
		const logger = { ...console, warn: (message: string) => void warnings.push(message) };
		const env = {
			MEMORY_STORE_UR: 'sqlite://:memory:',
			SHORT_TERM_MEMORY_TTL_HOUR: '3',
			MEMORY_TEST_REDIS_URL: 'redis://x',
			OTHER_MEMORY_X: '1'
		};
		const engine = await MemoryEngine.open({ env, logger, config: { storeUrl: 'sqlite://:memory:', sweepIntervalMinutes: 0 } });
		await engine.close();

		expect(warnings).toEqual([
			expect.stringMatching(/^\[memory\] MEMORY_STORE_UR is not a setting of sapphire-plugin-memory: did you mean MEMORY_STORE_URL\?/),
			expect.stringMatching(/^\[memory\] MEMORY_TEST_REDIS_URL is not a setting .*: the closest is MEMORY_STORE_URL\./),
			expect.stringMatching(/^\[memory\] SHORT_TERM_MEMORY_TTL_HOUR is not a setting .*: did you mean SHORT_TERM_MEMORY_TTL_HOURS\?/)
		]);
	});

	it('WHEN a bad value comes with a misspelt variable THEN the warning comes before the error, so the cause is in view', async () => {
		const warnings: string[] = [];
		const logger = { ...console, warn: (message: string) => void warnings.push(message) };
		await expect(MemoryEngine.open({ env: { MEMORY_CONTEXT_TOKEN_BUDGETT: '800', MEMORY_CONTEXT_TOKEN_BUDGET: '1e3' }, logger })).rejects.toThrow(
			'MEMORY_CONTEXT_TOKEN_BUDGET="1e3"'
		);
		expect(warnings).toEqual([expect.stringContaining('did you mean MEMORY_CONTEXT_TOKEN_BUDGET?')]);
	});

	it('WHEN MemoryEngine.open gets a bad value THEN it rejects before touching any store', async () => {
		await expect(MemoryEngine.open({ env: { MEMORY_REFRESH_CADENCE: 'often' } })).rejects.toMatchObject({
			code: 'INVALID_CONFIG',
			message: expect.stringContaining('MEMORY_REFRESH_CADENCE="often"')
		});
	});

	it('WHEN the store cannot be reached THEN open rejects with STORE_UNAVAILABLE naming the socket error, not the adapter’s options', async () => {
		const opening = MemoryEngine.open({ env: {}, storeUrl: 'redis://127.0.0.1:1' });
		await expect(opening).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
		await expect(opening).rejects.toThrow(
			/^Cannot reach memory store redis:\/\/127\.0\.0\.1:1: connect ECONNREFUSED 127\.0\.0\.1:1\. Is the server running there\?$/
		);
	});

	it('THEN every variable documented in docs/configuration.md is one the engine reads', async () => {
		const { readFileSync } = await import('node:fs');
		const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
		for (const name of Object.keys(MemoryEnvironment)) expect(readme).toContain(`\`${name}\``);
	});
});

/** For every variable: values that must stop start-up, and the edges of what it accepts. */
const RANGES: Record<keyof typeof MemoryEnvironment, { refused: string[]; accepted: [string, unknown][] }> = {
	SHORT_TERM_MEMORY_TTL_HOURS: {
		refused: ['0', '-1', '8761', 'twelve', 'NaN', '1e400', '12h'],
		accepted: [
			['0.01', 0.01],
			['12.5', 12.5]
		]
	},
	SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: {
		refused: ['0', '8761', 'a day', '24 hours'],
		accepted: [
			['24', 24],
			['8760', 8760]
		]
	},
	SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL: {
		refused: ['0', '201', '1.5', '-3', 'ten'],
		accepted: [
			['1', 1],
			['200', 200]
		]
	},
	SHORT_TERM_MEMORY_MAX_OTHER_CHANNELS: {
		refused: ['-1', '21', '2.5', 'all'],
		accepted: [
			['0', 0],
			['20', 20]
		]
	},
	SHORT_TERM_MEMORY_DEFAULT_CRUDE_MESSAGE_COUNT: {
		refused: ['-1', '51', '0.5'],
		accepted: [
			['0', 0],
			['50', 50]
		]
	},
	SHORT_TERM_MEMORY_MAX_SUMMARY_LENGTH: {
		refused: ['99', '20001', 'long'],
		accepted: [
			['100', 100],
			['20000', 20_000]
		]
	},
	MEMORY_STORE_URL: {
		refused: ['mysql://localhost', 'sqlite://', 'redis:/127.0.0.1', 'http://127.0.0.1', './data/memory.sqlite'],
		accepted: [
			['rediss://cache:6380', 'rediss://cache:6380'],
			['postgresql://bot@db/memory', 'postgresql://bot@db/memory']
		]
	},
	MEMORY_STORE_NAMESPACE: {
		refused: ['has space', 'a:b', 'x'.repeat(65), 'ümlaut'],
		accepted: [
			['bot_1-a', 'bot_1-a'],
			['x'.repeat(64), 'x'.repeat(64)]
		]
	},
	MEMORY_SQLITE_SYNCHRONOUS: {
		refused: ['FULL!', 'off', '1'],
		accepted: [
			['normal', 'normal'],
			['full', 'full']
		]
	},
	MEMORY_SQLITE_REWRITE_SECONDS: {
		refused: ['-1', '86401', '1.5', '1m'],
		accepted: [
			['0', 0],
			['86400', 86_400]
		]
	},
	MEMORY_SQLITE_DRIVER: {
		refused: ['keyv', 'sqlite3', 'better-sqlite'],
		accepted: [
			['better-sqlite3', 'better-sqlite3'],
			['@keyv/sqlite', '@keyv/sqlite']
		]
	},
	MEMORY_FORGET_MEMBERS_WHO_LEAVE: {
		refused: ['maybe', '2', 'truee', 'enabled', 'y'],
		accepted: [
			['true', true],
			['false', false],
			['1', true],
			['off', false]
		]
	},
	MEMORY_START_WITHOUT_STORE: {
		refused: ['maybe', 'truee', '2'],
		accepted: [
			['true', true],
			['off', false]
		]
	},
	MEMORY_SERVER_PURGE_GRACE_HOURS: {
		refused: ['-1', '8761', '2.5', '1d'],
		accepted: [
			['0', 0],
			['8760', 8760]
		]
	},
	MEMORY_STORE_TIMEOUT_MS: {
		refused: ['99', '60001', '2s'],
		accepted: [
			['100', 100],
			['60000', 60_000]
		]
	},
	MEMORY_CONTEXT_TOKEN_BUDGET: {
		refused: ['49', '16001', '200000', '12.5', '1.5k'],
		accepted: [
			['50', 50],
			['16000', 16_000]
		]
	},
	MEMORY_INDEX_CACHE_MB: {
		refused: ['0', '65537', '1.5', '32MB'],
		accepted: [
			['1', 1],
			['65536', 65_536]
		]
	},
	MEMORY_ARCHIVE_RETENTION_DAYS: {
		refused: ['-1', '3651', 'forever'],
		accepted: [
			['0', 0],
			['3650', 3650]
		]
	},
	MEMORY_SWEEP_INTERVAL_MINUTES: {
		refused: ['-1', '10081', 'hourly'],
		accepted: [
			['0', 0],
			['10080', 10_080]
		]
	},
	MEMORY_REFRESH_CADENCE: {
		refused: ['0', '1001', '2.5', 'often'],
		accepted: [
			['1', 1],
			['1000', 1000]
		]
	},
	MEMORY_LLM_BASE_URL: {
		refused: ['127.0.0.1:8080/v1', 'ftp://example.com/v1', 'http://', 'http://a b/v1'],
		accepted: [['https://api.example.com/v1', 'https://api.example.com/v1']]
	},
	MEMORY_LLM_API_KEY: { refused: ['k'.repeat(4097)], accepted: [['sk-test', 'sk-test']] },
	MEMORY_ENCRYPTION_KEY: {
		// 31 and 33 bytes, hex one digit short, not base64 at all.
		refused: [Buffer.alloc(31, 7).toString('base64'), Buffer.alloc(33, 7).toString('base64'), `${'ab'.repeat(31)}a`, 'not a key at all'],
		accepted: [
			['00'.repeat(32), '00'.repeat(32)],
			[Buffer.alloc(32, 9).toString('base64'), Buffer.alloc(32, 9).toString('base64')],
			[Buffer.alloc(32, 250).toString('base64url'), Buffer.alloc(32, 250).toString('base64url')]
		]
	},
	MEMORY_ENCRYPTION_PREVIOUS_KEYS: {
		refused: [',', `${'00'.repeat(32)},short`],
		accepted: [[`${'00'.repeat(32)}, ${Buffer.alloc(32, 1).toString('base64')}`, `${'00'.repeat(32)}, ${Buffer.alloc(32, 1).toString('base64')}`]]
	},
	MEMORY_LLM_MODEL: { refused: ['m'.repeat(201)], accepted: [['llama-3.1-8b', 'llama-3.1-8b']] },
	MEMORY_LLM_TIMEOUT_MS: {
		refused: ['99', '600001', '20s'],
		accepted: [
			['100', 100],
			['600000', 600_000]
		]
	},
	MEMORY_LLM_MAX_CALLS_PER_CHANNEL_PER_DAY: {
		refused: ['-1', '100001', '1.5'],
		accepted: [
			['0', 0],
			['100000', 100_000]
		]
	},
	MEMORY_LLM_MAX_CALLS_PER_DAY: {
		refused: ['-5', '10000001', 'lots'],
		accepted: [
			['0', 0],
			['10000000', 10_000_000]
		]
	},
	MEMORY_LLM_MIN_NEW_DIGEST_LINES: {
		refused: ['0', '1001', '3.5'],
		accepted: [
			['1', 1],
			['1000', 1000]
		]
	},
	MEMORY_LLM_PRICE_INPUT_PER_MTOK: {
		refused: ['-0.01', '10001', 'free', '$0.15'],
		accepted: [
			['0', 0],
			['0.15', 0.15]
		]
	},
	MEMORY_LLM_PRICE_OUTPUT_PER_MTOK: {
		refused: ['-1', '10001', 'cheap'],
		accepted: [
			['0', 0],
			['10000', 10_000]
		]
	}
};

describe('GIVEN every environment variable, with values it does not accept and the edges of what it does', () => {
	const refused = Object.entries(RANGES).flatMap(([name, { refused: values }]) => values.map((value) => [name, value] as const));
	const accepted = Object.entries(RANGES).flatMap(([name, { accepted: values }]) =>
		values.map(([value, parsed]) => [name, value, parsed] as const)
	);

	it('THEN the table covers every variable the engine reads', () => {
		expect(Object.keys(RANGES).sort()).toEqual(Object.keys(MemoryEnvironment).sort());
	});

	it.each(refused)('WHEN %s=%j THEN start-up stops with INVALID_CONFIG naming the variable, the value and what it accepts', (name, value) => {
		const spec = MemoryEnvironment[name as keyof typeof MemoryEnvironment];
		// The summary TTL must be at least the message TTL: keep that rule out of the way of the value under test.
		const env = name === 'SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS' ? { SHORT_TERM_MEMORY_TTL_HOURS: '0.01', [name]: value } : { [name]: value };
		let thrown: unknown;
		try {
			resolveConfig({}, env);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toMatchObject({ code: 'INVALID_CONFIG' });
		// A key's value is never printed: its length is.
		const secret = 'secret' in spec;
		expect((thrown as Error).message).toContain(secret ? `${name}=(hidden, ${value.length} characters)` : `${name}=${JSON.stringify(value)}`);
		if (secret && value.length > 8) expect((thrown as Error).message).not.toContain(value);
		expect((thrown as Error).message).toContain(spec.accepts);
	});

	it('WHEN MEMORY_ENCRYPTION_PREVIOUS_KEYS is set without MEMORY_ENCRYPTION_KEY THEN start-up stops, naming both', () => {
		expect(() => resolveConfig({}, { MEMORY_ENCRYPTION_PREVIOUS_KEYS: 'ab'.repeat(32) })).toThrow(
			/MEMORY_ENCRYPTION_PREVIOUS_KEYS is set without MEMORY_ENCRYPTION_KEY/
		);
	});

	it.each(accepted)('WHEN %s=%j THEN it is accepted as %j', (name, value, parsed) => {
		// The summary TTL must be at least the message TTL, and previous keys need a key: keep those rules out of the way.
		const env =
			name === 'SHORT_TERM_MEMORY_TTL_HOURS' || name === 'SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS'
				? { SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: '8760', [name]: value }
				: name === 'MEMORY_ENCRYPTION_PREVIOUS_KEYS'
					? { MEMORY_ENCRYPTION_KEY: 'ff'.repeat(32), [name]: value }
					: { [name]: value };
		const spec = MemoryEnvironment[name as keyof typeof MemoryEnvironment];
		expect(resolveConfig({}, env)[spec.key]).toEqual(parsed);
	});

	it('WHEN a variable is set but blank THEN its default applies', () => {
		expect(resolveConfig({}, { MEMORY_CONTEXT_TOKEN_BUDGET: '   ', MEMORY_LLM_API_KEY: '' })).toMatchObject({
			contextTokenBudget: 1500,
			llmApiKey: null
		});
	});

	it.each([
		['contextTokenBudget', 12.5],
		['maxOtherChannels', -1],
		['storeNamespace', 'no spaces please'],
		['ttlHours', Number.NaN]
	] as const)('WHEN the option memory.%s is %j THEN start-up stops naming the option and its variable', (key, value) => {
		expect(() => resolveConfig({ [key]: value })).toThrowError(
			expect.objectContaining({ code: 'INVALID_CONFIG', message: expect.stringContaining(`option memory.${key}=`) })
		);
	});
});
