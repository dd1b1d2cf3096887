import { z } from 'zod';
import { MemoryError } from './errors';
import type { SqliteSynchronous } from './store/SqliteAdapter';

const HOUR_LIMIT = 24 * 365;

function integer(min: number, max: number) {
	return z.coerce.number().int().min(min).max(max);
}

/**
 * Every setting, keyed by its environment variable. The README's table is this object.
 * The zod schema validates both the environment and options passed to `MemoryEngine.open`.
 */
export const MemoryEnvironment = {
	SHORT_TERM_MEMORY_TTL_HOURS: {
		key: 'ttlHours',
		schema: z.coerce.number().min(0.01).max(HOUR_LIMIT),
		default: 12,
		accepts: 'a number of hours from 0.01 to 8760'
	},
	SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: {
		key: 'summaryTtlHours',
		schema: z.coerce.number().min(0.01).max(HOUR_LIMIT),
		default: 24,
		accepts: 'a number of hours from 0.01 to 8760'
	},
	SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL: {
		key: 'maxMessagesPerChannel',
		schema: integer(1, 200),
		default: 10,
		accepts: 'a whole number from 1 to 200'
	},
	SHORT_TERM_MEMORY_MAX_OTHER_CHANNELS: { key: 'maxOtherChannels', schema: integer(0, 20), default: 3, accepts: 'a whole number from 0 to 20' },
	SHORT_TERM_MEMORY_DEFAULT_CRUDE_MESSAGE_COUNT: {
		key: 'crudeMessageCount',
		schema: integer(0, 50),
		default: 6,
		accepts: 'a whole number from 0 to 50'
	},
	SHORT_TERM_MEMORY_MAX_SUMMARY_LENGTH: {
		key: 'maxSummaryLength',
		schema: integer(100, 20_000),
		default: 1500,
		accepts: 'a whole number of characters from 100 to 20000'
	},
	MEMORY_STORE_URL: {
		key: 'storeUrl',
		schema: z.string().regex(/^(sqlite|redis|rediss|postgres|postgresql):\/\/.+/),
		default: 'sqlite://./data/memory.sqlite',
		accepts: 'a URL starting with sqlite://, redis://, rediss://, postgres:// or postgresql://'
	},
	MEMORY_STORE_TIMEOUT_MS: {
		key: 'storeTimeoutMs',
		schema: integer(100, 60_000),
		default: 2000,
		accepts: 'a whole number of milliseconds from 100 to 60000'
	},
	MEMORY_SQLITE_SYNCHRONOUS: {
		key: 'sqliteSynchronous',
		schema: z.enum(['normal', 'full']),
		default: 'normal',
		accepts:
			'"normal" (a resolved turn survives the bot process crashing) or "full" (it survives a power cut too, at one sync to disk per commit)'
	},
	MEMORY_STORE_NAMESPACE: {
		key: 'storeNamespace',
		schema: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
		default: 'memory',
		accepts: '1 to 64 letters, digits, "_" or "-"'
	},
	MEMORY_CONTEXT_TOKEN_BUDGET: {
		key: 'contextTokenBudget',
		schema: integer(50, 200_000),
		default: 1500,
		accepts: 'a whole number of tokens from 50 to 200000'
	},
	MEMORY_INDEX_CACHE_MB: { key: 'indexCacheMb', schema: integer(1, 65_536), default: 32, accepts: 'a whole number of MiB from 1 to 65536' },
	MEMORY_ARCHIVE_RETENTION_DAYS: {
		key: 'archiveRetentionDays',
		schema: z.coerce.number().min(0).max(3650),
		default: 30,
		accepts: 'a number of days from 0 (archive off) to 3650'
	},
	MEMORY_SWEEP_INTERVAL_MINUTES: {
		key: 'sweepIntervalMinutes',
		schema: z.coerce.number().min(0).max(10_080),
		default: 60,
		accepts: 'a number of minutes from 0 (no automatic sweep) to 10080 (a week)'
	},
	MEMORY_REFRESH_CADENCE: { key: 'refreshCadence', schema: integer(1, 1000), default: 5, accepts: 'a whole number of turns from 1 to 1000' },
	MEMORY_LLM_BASE_URL: {
		key: 'llmBaseUrl',
		schema: z
			.string()
			.regex(/^https?:\/\/\S+$/)
			.nullable(),
		default: null,
		accepts: 'an http:// or https:// base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1 (unset: no background summarizer)'
	},
	MEMORY_LLM_API_KEY: {
		key: 'llmApiKey',
		schema: z.string().min(1).max(4096).nullable(),
		default: null,
		accepts: 'a key of at most 4096 characters, sent as a Bearer token'
	},
	MEMORY_LLM_MODEL: { key: 'llmModel', schema: z.string().min(1).max(200), default: 'gpt-4o-mini', accepts: 'a model name of 1 to 200 characters' },
	MEMORY_LLM_TIMEOUT_MS: {
		key: 'llmTimeoutMs',
		schema: integer(100, 600_000),
		default: 20_000,
		accepts: 'a whole number of milliseconds from 100 to 600000'
	},
	MEMORY_LLM_MAX_CALLS_PER_CHANNEL_PER_DAY: {
		key: 'llmMaxCallsPerChannelPerDay',
		schema: integer(0, 100_000),
		default: 24,
		accepts: 'a whole number of calls from 0 to 100000'
	},
	MEMORY_LLM_MAX_CALLS_PER_DAY: {
		key: 'llmMaxCallsPerDay',
		schema: integer(0, 10_000_000),
		default: 500,
		accepts: 'a whole number of calls from 0 to 10000000'
	},
	MEMORY_LLM_MIN_NEW_DIGEST_LINES: {
		key: 'llmMinNewDigestLines',
		schema: integer(1, 1000),
		default: 4,
		accepts: 'a whole number of digest lines from 1 to 1000'
	},
	MEMORY_LLM_PRICE_INPUT_PER_MTOK: {
		key: 'llmPriceInputPerMTok',
		schema: z.coerce.number().min(0).max(10_000),
		default: 0,
		accepts: 'US dollars per million input tokens, from 0 to 10000'
	},
	MEMORY_LLM_PRICE_OUTPUT_PER_MTOK: {
		key: 'llmPriceOutputPerMTok',
		schema: z.coerce.number().min(0).max(10_000),
		default: 0,
		accepts: 'US dollars per million output tokens, from 0 to 10000'
	}
} as const;

type Environment = typeof MemoryEnvironment;
type EnvironmentName = keyof Environment;

/** The engine's settings, after defaults, environment and options are merged. */
export interface MemoryConfig {
	/** @default 12 */
	ttlHours: number;
	/** @default 24 */
	summaryTtlHours: number;
	/** @default 10 */
	maxMessagesPerChannel: number;
	/** @default 3 */
	maxOtherChannels: number;
	/** @default 6 */
	crudeMessageCount: number;
	/** @default 1500 */
	maxSummaryLength: number;
	/** @default 'sqlite://./data/memory.sqlite' */
	storeUrl: string;
	/** How long a call to a Redis, PostgreSQL or custom store may take before it fails as `STORE_UNAVAILABLE` (SQLite waits its busy timeout). @default 2000 */
	storeTimeoutMs: number;
	/**
	 * SQLite's `synchronous` setting in WAL mode: `normal` keeps every resolved turn when the bot process
	 * crashes; `full` also when the machine loses power, at one sync to disk per commit. @default 'normal'
	 */
	sqliteSynchronous: SqliteSynchronous;
	/** Prefix of every key, so several bots can share one Redis or PostgreSQL. @default 'memory' */
	storeNamespace: string;
	/** @default 1500 */
	contextTokenBudget: number;
	/** @default 30 */
	archiveRetentionDays: number;
	/** MiB the archives' search indexes kept in memory may take, with their messages; the least recently used go first. */
	indexCacheMb: number;
	/** Minutes between background sweeps of expired data; 0 runs none (call `memory.sweep()` yourself). @default 60 */
	sweepIntervalMinutes: number;
	/** @default 5 */
	refreshCadence: number;
	/** OpenAI-compatible API base of the background summarizer; null leaves it off. @default null */
	llmBaseUrl: string | null;
	/** Sent as `Authorization: Bearer …` when set. @default null */
	llmApiKey: string | null;
	/** @default 'gpt-4o-mini' */
	llmModel: string;
	/** @default 20000 */
	llmTimeoutMs: number;
	/** Summarizer calls per channel per UTC day. @default 24 */
	llmMaxCallsPerChannelPerDay: number;
	/** Summarizer calls per process per UTC day. @default 500 */
	llmMaxCallsPerDay: number;
	/** Digest lines a scope gains past its last background summary before it is summarized again. @default 4 */
	llmMinNewDigestLines: number;
	/** US dollars per million input tokens, to record each summary's cost. @default 0 */
	llmPriceInputPerMTok: number;
	/** US dollars per million output tokens. @default 0 */
	llmPriceOutputPerMTok: number;
}

/** The zod schema of a complete {@link MemoryConfig}. */
export const MemoryConfigSchema = z.object(
	Object.fromEntries(Object.values(MemoryEnvironment).map((spec) => [spec.key, spec.schema])) as {
		[K in EnvironmentName as Environment[K]['key']]: Environment[K]['schema'];
	}
);

/**
 * Merges defaults, the environment and explicit options (which win), and validates the result.
 * @throws MemoryError `INVALID_CONFIG` naming the variable, the value and what is accepted.
 */
export function resolveConfig(overrides: Partial<MemoryConfig> = {}, env: NodeJS.ProcessEnv = process.env): MemoryConfig {
	const resolved: Record<string, unknown> = {};
	for (const [name, spec] of Object.entries(MemoryEnvironment) as [EnvironmentName, Environment[EnvironmentName]][]) {
		const override = overrides[spec.key];
		const raw = env[name];
		const fromEnv = raw !== undefined && raw.trim() !== '';
		const value = override ?? (fromEnv ? raw.trim() : spec.default);
		const parsed = spec.schema.safeParse(value);
		if (!parsed.success) {
			const source =
				override === undefined ? `${name}=${JSON.stringify(raw)}` : `option memory.${spec.key}=${JSON.stringify(override)} (${name})`;
			throw new MemoryError('INVALID_CONFIG', `Invalid memory configuration: ${source}; expected ${spec.accepts}.`);
		}
		resolved[spec.key] = parsed.data;
	}
	const config = resolved as unknown as MemoryConfig;
	if (config.summaryTtlHours < config.ttlHours) {
		throw new MemoryError(
			'INVALID_CONFIG',
			`Invalid memory configuration: SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS=${config.summaryTtlHours} is below SHORT_TERM_MEMORY_TTL_HOURS=${config.ttlHours}; a summary must live at least as long as the messages.`
		);
	}
	return config;
}
