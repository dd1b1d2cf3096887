import { describe, expect, it } from 'vitest';
import { closestName, MemoryEngine, resolveConfig, settingWarnings } from '../../src/engine';

/** Settings that forgive what can be forgiven and explain the rest, all of it in one run. */
describe('GIVEN a raised SHORT_TERM_MEMORY_TTL_HOURS', () => {
	it('WHEN the summary TTL is not set THEN it follows the TTL, and start-up goes on', () => {
		expect(resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: '48' })).toMatchObject({ ttlHours: 48, summaryTtlHours: 48 });
		expect(resolveConfig({ ttlHours: 100 }, {})).toMatchObject({ ttlHours: 100, summaryTtlHours: 100 });
	});

	it('WHEN the TTL stays below the summary TTL’s default THEN the default stands', () => {
		expect(resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: '6' })).toMatchObject({ ttlHours: 6, summaryTtlHours: 24 });
	});

	it('WHEN the summary TTL is set empty THEN it is unset, and follows too', () => {
		expect(resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: '48', SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: ' ' }).summaryTtlHours).toBe(48);
	});

	it('WHEN the summary TTL is set below it THEN start-up stops, saying it would follow if unset', () => {
		expect(() => resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: '48', SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: '24' })).toThrow(
			'Invalid memory configuration: SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS=24 is below SHORT_TERM_MEMORY_TTL_HOURS=48; a summary must ' +
				'live at least as long as the messages (unset, it follows SHORT_TERM_MEMORY_TTL_HOURS).'
		);
	});

	it('WHEN the summary TTL is an option below it THEN the error names the option and its variable', () => {
		expect(() => resolveConfig({ summaryTtlHours: 10 }, { SHORT_TERM_MEMORY_TTL_HOURS: '12' })).toThrow(
			'option memory.summaryTtlHours=10 (SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS) is below SHORT_TERM_MEMORY_TTL_HOURS=12'
		);
	});
});

describe('GIVEN bad values alone and between settings', () => {
	it('WHEN both kinds come in one environment THEN one error names them all, in one run', () => {
		const env = {
			SHORT_TERM_MEMORY_TTL_HOURS: '48',
			SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: '24',
			MEMORY_CONTEXT_TOKEN_BUDGET: 'lots',
			MEMORY_ENCRYPTION_PREVIOUS_KEYS: 'ab'.repeat(32)
		};
		expect(() => resolveConfig({}, env)).toThrowError(
			[
				'Invalid memory configuration, 3 settings:',
				'  MEMORY_CONTEXT_TOKEN_BUDGET="lots"; expected a whole number of tokens from 50 to 16000.',
				'  MEMORY_ENCRYPTION_PREVIOUS_KEYS is set without MEMORY_ENCRYPTION_KEY; set the key new values are sealed with too.',
				'  SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS=24 is below SHORT_TERM_MEMORY_TTL_HOURS=48; a summary must live at least as long as the ' +
					'messages (unset, it follows SHORT_TERM_MEMORY_TTL_HOURS).'
			].join('\n')
		);
	});

	it('WHEN a value of a rule is bad alone THEN only its own problem is told, not the rule it cannot be compared in', () => {
		expect(() => resolveConfig({}, { SHORT_TERM_MEMORY_TTL_HOURS: 'two days', SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: '1' })).toThrowError(
			/^Invalid memory configuration: SHORT_TERM_MEMORY_TTL_HOURS="two days"; expected a number of hours from 0.01 to 8760\.$/
		);
	});
});

describe('GIVEN a setting set empty', () => {
	it('THEN it is read as unset, and a warning names it', () => {
		const env = { SHORT_TERM_MEMORY_TTL_HOURS: '', MEMORY_LLM_MODEL: '   ' };
		expect(resolveConfig({}, env)).toMatchObject({ ttlHours: 12, llmModel: 'gpt-4o-mini' });
		expect(settingWarnings(env)).toEqual([
			'[memory] SHORT_TERM_MEMORY_TTL_HOURS is set but empty: it is read as unset, so its default applies.',
			'[memory] MEMORY_LLM_MODEL is set but empty: it is read as unset, so its default applies.'
		]);
	});

	it('WHEN the engine opens THEN the warning goes through its logger', async () => {
		const warnings: string[] = [];
		const logger = { ...console, warn: (message: string) => void warnings.push(message) };
		const engine = await MemoryEngine.open({
			env: { SHORT_TERM_MEMORY_TTL_HOURS: '' },
			logger,
			config: { storeUrl: 'sqlite://:memory:', sweepIntervalMinutes: 0 }
		});
		expect(engine.config.ttlHours).toBe(12);
		await engine.close();
		expect(warnings).toEqual([expect.stringContaining('SHORT_TERM_MEMORY_TTL_HOURS is set but empty')]);
	});
});

describe('GIVEN variables that look like settings and are none', () => {
	const warned = (env: Record<string, string>) => settingWarnings(env);

	it.each([
		['SHORT_TERM_MEMROY_TTL_HOURS', 'did you mean SHORT_TERM_MEMORY_TTL_HOURS?'],
		['MEMOR_STORE_URL', 'did you mean MEMORY_STORE_URL?'],
		['MEMORYSTORE_URL', 'did you mean MEMORY_STORE_URL?'],
		['SHORT_TERM_MEMORY_TTL_HOUR', 'did you mean SHORT_TERM_MEMORY_TTL_HOURS?'],
		['MEMORY_STORE_UR', 'did you mean MEMORY_STORE_URL?'],
		['SHORTTERM_MEMORY_MAX_OTHER_CHANNELS', 'did you mean SHORT_TERM_MEMORY_MAX_OTHER_CHANNELS?'],
		// Under one prefix, a setting of the other: the closest is the setting the rest names, not a neighbour of the prefix.
		['MEMORY_SHORT_TREM_TTL_HOURS', 'the closest is SHORT_TERM_MEMORY_TTL_HOURS.'],
		['MEMORY_TEST_REDIS_URL', 'the closest is MEMORY_STORE_URL.']
	])('WHEN %s is set THEN the warning says: %s', (name, hint) => {
		expect(warned({ [name]: '1' })).toEqual([
			`[memory] ${name} is not a setting of sapphire-plugin-memory: ${hint} (Ignore this if ${name} is meant for something else.)`
		]);
	});

	it('WHEN the environment holds other programs’ variables THEN none of them is warned about', () => {
		const env = {
			PATH: '/usr/bin',
			HOME: '/home/bot',
			DISCORD_TOKEN: 'x',
			NODE_OPTIONS: '--max-old-space-size=512',
			MEMO: '1',
			MEMORY: '1',
			MEMORYLIMIT: '512',
			MEMO_STORE_PATH: '/tmp',
			REDIS_URL: 'redis://x',
			DATABASE_URL: 'postgres://x',
			SHORT_TERM_GOALS: 'x',
			npm_config_cache: '/tmp',
			...Object.fromEntries(Object.keys(process.env).map((name) => [name, 'x']))
		};
		for (const name of Object.keys(env)) if (/^(SHORT_TERM_)?MEMORY_/.test(name)) delete env[name as keyof typeof env];
		expect(warned(env)).toEqual([]);
	});
});

describe('GIVEN the one edit distance', () => {
	it('THEN a close name is a likely typo and a far one is not', () => {
		expect(closestName('stat', ['stats', 'inspect', 'export'])).toEqual({ name: 'stats', distance: 1, likelyTypo: true });
		expect(closestName('frobnicate', ['stats', 'inspect', 'export'])?.likelyTypo).toBe(false);
		expect(closestName('anything', [])).toBeUndefined();
	});
});
