import { z } from 'zod';
import { MAX_CONTEXT_TOKEN_BUDGET } from './schemas/context';
import { isEncryptionKey, splitKeys } from './schemas/encryptionKeys';

// The settings table, alone: how the settings are merged and checked together lives in config.ts.

const HOUR_LIMIT = 24 * 365;

/**
 * A number as an operator writes one: digits with an optional sign and decimal point. JavaScript would also read
 * `0x10`, `0b11`, `0o7` and `1e1`, which no accepted range below mentions, so they are refused.
 */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** A number setting; a string (from the environment) must be a plain number. */
function number(min: number, max: number, whole = false) {
	const range = (whole ? z.number().int() : z.number()).min(min).max(max);
	return z.preprocess((value) => (typeof value === 'string' ? (PLAIN_NUMBER.test(value) ? Number(value) : Number.NaN) : value), range);
}

function integer(min: number, max: number) {
	return number(min, max, true);
}

/** A switch: a boolean, or a string from the environment. */
const flag = z.union([z.boolean(), z.stringbool({ truthy: ['true', '1', 'yes', 'on'], falsy: ['false', '0', 'no', 'off'] })]);
const FLAG_ACCEPTS = '"true" or "false" (also 1/0, yes/no, on/off)';

/**
 * Every setting, keyed by its environment variable. The table in docs/configuration.md is this object.
 * The zod schema validates both the environment and options passed to `MemoryEngine.open`.
 */
export const MemoryEnvironment = {
	/** Hours a short-term entry lives after its last update. */
	SHORT_TERM_MEMORY_TTL_HOURS: {
		key: 'ttlHours',
		schema: number(0.01, HOUR_LIMIT),
		default: 12,
		accepts: 'a number of hours from 0.01 to 8760'
	},
	/** Hours an entry that holds a summary (from the tool or a digest) lives after its last update. */
	SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS: {
		key: 'summaryTtlHours',
		schema: number(0.01, HOUR_LIMIT),
		default: 24,
		accepts: 'a number of hours from 0.01 to 8760'
	},
	/** Crude messages a short-term entry keeps; older ones fold into its digest. */
	SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL: {
		key: 'maxMessagesPerChannel',
		schema: integer(1, 200),
		default: 10,
		accepts: 'a whole number from 1 to 200'
	},
	/** Other channels whose memories a context may show. */
	SHORT_TERM_MEMORY_MAX_OTHER_CHANNELS: { key: 'maxOtherChannels', schema: integer(0, 20), default: 3, accepts: 'a whole number from 0 to 20' },
	/** Recent messages shown of each other channel. */
	SHORT_TERM_MEMORY_DEFAULT_CRUDE_MESSAGE_COUNT: {
		key: 'crudeMessageCount',
		schema: integer(0, 50),
		default: 6,
		accepts: 'a whole number from 0 to 50'
	},
	/** Characters a summary (and a digest) may take. */
	SHORT_TERM_MEMORY_MAX_SUMMARY_LENGTH: {
		key: 'maxSummaryLength',
		schema: integer(100, 20_000),
		default: 1500,
		accepts: 'a whole number of characters from 100 to 20000'
	},
	/** Where memory is stored: an SQLite file, Redis or PostgreSQL. */
	MEMORY_STORE_URL: {
		key: 'storeUrl',
		schema: z.string().regex(/^(sqlite|redis|rediss|postgres|postgresql):\/\/.+/),
		default: 'sqlite://./data/memory.sqlite',
		accepts: 'a URL starting with sqlite://, redis://, rediss://, postgres:// or postgresql://'
	},
	/** How long a call to a Redis, PostgreSQL or custom store may take before it fails as `STORE_UNAVAILABLE` (SQLite waits its busy timeout). */
	MEMORY_STORE_TIMEOUT_MS: {
		key: 'storeTimeoutMs',
		schema: integer(100, 60_000),
		default: 2000,
		accepts: 'a whole number of milliseconds from 100 to 60000'
	},
	/**
	 * When the store cannot be reached at start-up, start anyway with memory off (replies get no context, turns are not
	 * kept, as during an outage) until it answers. Off: start-up stops with `STORE_UNAVAILABLE`.
	 */
	MEMORY_START_WITHOUT_STORE: {
		key: 'startWithoutStore',
		schema: flag,
		default: false,
		accepts: FLAG_ACCEPTS
	},
	/**
	 * SQLite's `synchronous` setting in WAL mode: `normal` keeps every resolved turn when the bot process crashes; `full` also when the
	 * machine loses power, at one sync to disk per commit.
	 */
	MEMORY_SQLITE_SYNCHRONOUS: {
		key: 'sqliteSynchronous',
		schema: z.enum(['normal', 'full']),
		default: 'normal',
		accepts:
			'"normal" (a resolved turn survives the bot process crashing) or "full" (it survives a power cut too, at one sync to disk per commit)'
	},
	/**
	 * On SQLite, how soon after a message is deleted on Discord the file is rewritten (`VACUUM`), so no unused
	 * page keeps its text, and after an erasure too (its log emptied at once, a deletion's within a second). 0: within each call.
	 */
	MEMORY_SQLITE_REWRITE_SECONDS: {
		key: 'sqliteRewriteSeconds',
		schema: integer(0, 86_400),
		default: 60,
		accepts: 'a whole number of seconds from 0 to 86400'
	},
	/**
	 * The library that opens a `sqlite://` store: this package's store on better-sqlite3 (synchronous, a fraction of the time
	 * per call), or `@keyv/sqlite` on the asynchronous `sqlite3` binding (install it). Both write the same file; see docs/storage.md.
	 */
	MEMORY_SQLITE_DRIVER: {
		key: 'sqliteDriver',
		schema: z.enum(['better-sqlite3', '@keyv/sqlite']),
		default: 'better-sqlite3',
		accepts: '"better-sqlite3" (the default) or "@keyv/sqlite" (which you install)'
	},
	/**
	 * Hours between the bot's removal from a server and the erasure of everything memory holds of it (0: at once).
	 * A pending erasure survives a restart, and the bot's return to the server cancels it.
	 */
	MEMORY_SERVER_PURGE_GRACE_HOURS: {
		key: 'serverPurgeGraceHours',
		schema: integer(0, HOUR_LIMIT),
		default: 0,
		accepts: 'a whole number of hours from 0 to 8760'
	},
	/**
	 * When a member leaves a server, what memory holds of them there is erased (the plugin needs the Guild Members
	 * intent to be told). Off: it stays until it expires or they erase it.
	 */
	MEMORY_FORGET_MEMBERS_WHO_LEAVE: {
		key: 'forgetMembersWhoLeave',
		schema: flag,
		default: false,
		accepts: FLAG_ACCEPTS
	},
	/**
	 * Seals every stored value with AES-256-GCM before it reaches the store (keys stay readable: see docs/storage.md).
	 * 32 random bytes, e.g. `openssl rand -base64 32`. A store sealed once needs its key from then on.
	 */
	MEMORY_ENCRYPTION_KEY: {
		key: 'encryptionKey',
		schema: z.string().refine(isEncryptionKey).nullable(),
		default: null,
		accepts: '32 random bytes as 64 hex digits or base64, e.g. the output of `openssl rand -base64 32` (unset: values are not sealed)',
		secret: true
	},
	/** Keys the store was sealed with before, comma-separated: their values stay readable until `sapphire-memory reseal` seals them again. */
	MEMORY_ENCRYPTION_PREVIOUS_KEYS: {
		key: 'encryptionPreviousKeys',
		schema: z
			.string()
			.refine((list) => splitKeys(list).length > 0 && splitKeys(list).every(isEncryptionKey))
			.nullable(),
		default: null,
		accepts: 'keys as MEMORY_ENCRYPTION_KEY takes them, separated by commas',
		secret: true
	},
	/** Prefix of every key, so several bots can share one Redis or PostgreSQL. */
	MEMORY_STORE_NAMESPACE: {
		key: 'storeNamespace',
		schema: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
		default: 'memory',
		accepts: '1 to 64 letters, digits, "_" or "-"'
	},
	/** Tokens a context may take when the request names no budget. */
	MEMORY_CONTEXT_TOKEN_BUDGET: {
		key: 'contextTokenBudget',
		schema: integer(50, MAX_CONTEXT_TOKEN_BUDGET),
		default: 1500,
		accepts: `a whole number of tokens from 50 to ${MAX_CONTEXT_TOKEN_BUDGET}`
	},
	/** MiB the archives' search indexes kept in memory may take, with their messages; the least recently used go first. */
	MEMORY_INDEX_CACHE_MB: { key: 'indexCacheMb', schema: integer(1, 65_536), default: 32, accepts: 'a whole number of MiB from 1 to 65536' },
	/** Days the archive keeps each message for the relevant tier; 0 turns the archive off. */
	MEMORY_ARCHIVE_RETENTION_DAYS: {
		key: 'archiveRetentionDays',
		schema: number(0, 3650),
		default: 30,
		accepts: 'a number of days from 0 (archive off) to 3650'
	},
	/** Minutes between background sweeps of expired data; 0 runs none (call `memory.sweep()` yourself). */
	MEMORY_SWEEP_INTERVAL_MINUTES: {
		key: 'sweepIntervalMinutes',
		schema: number(0, 10_080),
		default: 60,
		accepts: 'a number of minutes from 0 (no automatic sweep) to 10080 (a week)'
	},
	/** Turns without a summary after which the context nudges the persona to write one. */
	MEMORY_REFRESH_CADENCE: { key: 'refreshCadence', schema: integer(1, 1000), default: 5, accepts: 'a whole number of turns from 1 to 1000' },
	/** OpenAI-compatible API base of the background summarizer; null leaves it off. */
	MEMORY_LLM_BASE_URL: {
		key: 'llmBaseUrl',
		schema: z
			.string()
			.regex(/^https?:\/\/\S+$/)
			.nullable(),
		default: null,
		accepts: 'an http:// or https:// base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1 (unset: no background summarizer)'
	},
	/** Sent as `Authorization: Bearer …` when set. */
	MEMORY_LLM_API_KEY: {
		key: 'llmApiKey',
		schema: z.string().min(1).max(4096).nullable(),
		default: null,
		accepts: 'a key of at most 4096 characters, sent as a Bearer token',
		secret: true
	},
	/** The model the background summarizer asks. */
	MEMORY_LLM_MODEL: { key: 'llmModel', schema: z.string().min(1).max(200), default: 'gpt-4o-mini', accepts: 'a model name of 1 to 200 characters' },
	/** How long one summarizer call may take. */
	MEMORY_LLM_TIMEOUT_MS: {
		key: 'llmTimeoutMs',
		schema: integer(100, 600_000),
		default: 20_000,
		accepts: 'a whole number of milliseconds from 100 to 600000'
	},
	/** Summarizer calls per channel per UTC day. */
	MEMORY_LLM_MAX_CALLS_PER_CHANNEL_PER_DAY: {
		key: 'llmMaxCallsPerChannelPerDay',
		schema: integer(0, 100_000),
		default: 24,
		accepts: 'a whole number of calls from 0 to 100000'
	},
	/** Summarizer calls per process per UTC day. */
	MEMORY_LLM_MAX_CALLS_PER_DAY: {
		key: 'llmMaxCallsPerDay',
		schema: integer(0, 10_000_000),
		default: 500,
		accepts: 'a whole number of calls from 0 to 10000000'
	},
	/** Digest lines a scope gains past its last background summary before it is summarized again. */
	MEMORY_LLM_MIN_NEW_DIGEST_LINES: {
		key: 'llmMinNewDigestLines',
		schema: integer(1, 1000),
		default: 4,
		accepts: 'a whole number of digest lines from 1 to 1000'
	},
	/** US dollars per million input tokens, to record each summary's cost. */
	MEMORY_LLM_PRICE_INPUT_PER_MTOK: {
		key: 'llmPriceInputPerMTok',
		schema: number(0, 10_000),
		default: 0,
		accepts: 'US dollars per million input tokens, from 0 to 10000'
	},
	/** US dollars per million output tokens. */
	MEMORY_LLM_PRICE_OUTPUT_PER_MTOK: {
		key: 'llmPriceOutputPerMTok',
		schema: number(0, 10_000),
		default: 0,
		accepts: 'US dollars per million output tokens, from 0 to 10000'
	}
} as const;
