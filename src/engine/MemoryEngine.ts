import type Keyv from 'keyv';
import * as Account from './account/account';
import { Archive } from './archive/Archive';
import { AUTHOR_FLUSH_MS, AuthorIndex } from './ledger/AuthorIndex';
import { recordTurn } from './capture/recordTurn';
import { type MemoryConfig, resolveConfig } from './config';
import { buildContext } from './context/buildContext';
import { ScopeDirectory } from './ledger/ScopeDirectory';
import * as Erasure from './account/erasure';
import { isOutage, MemoryError } from './errors';
import type { StoreHealthChange, StoreHealthCounters } from './store/StoreHealth';
import { type ChannelInspection, type ChannelQuery, inspectChannel } from './maintenance/inspect';
import { type StoreInventory, takeInventory } from './maintenance/inventory';
import * as LongTerm from './account/longTerm';
import { type LatencyHistogram, LatencyRecorder } from './stats/LatencyRecorder';
import { keptPastExpiryMs } from './store/grace';
import { Registry } from './store/Registry';
import { type SweepCounters, SweepSchedule } from './maintenance/SweepSchedule';
import { sweep, type SweepResult } from './maintenance/sweep';
import { assertId, SettingsRepository } from './privacy/SettingsRepository';
import { wipeChannel } from './account/moderation';
import { parseRemember, type RememberArguments } from './account/remember';
import { markSummariesStale } from './summaries/staleness';
import { MemoryStore } from './store/MemoryStore';
import { BackgroundSummarizer, type SummarizerCounters, summarizerCounters } from './summaries/BackgroundSummarizer';
import { type SummaryTarget, SummaryWriter } from './summaries/SummaryWriter';
import {
	type ClearAllResult,
	type ClearShortTermResult,
	type ContextRequest,
	type ContextTier,
	type MemoryContext,
	type MemoryStatus,
	type MemoryTurn,
	type MessagesChange,
	PrivacyLevel,
	type ProfilePatch,
	type RecordTurnResult,
	type ServerSettings,
	type ShortTermEntry,
	type SkipReason,
	type StatusLocation,
	type TopicListing,
	type TopicNote,
	type UserExport,
	type UserProfile,
	type UserSettings
} from './schemas/types';
import { ContextRequestSchema, MemoryTurnSchema, MessagesChangeSchema, parseInput, StatusLocationSchema } from './schemas/validation';

/** Where the engine logs; `console` fits, and so does Sapphire's `container.logger`. */
export interface MemoryLogger {
	warn(...values: unknown[]): void;
	error(...values: unknown[]): void;
}

/** Options of {@link MemoryEngine.open}; every field is optional. */
export interface MemoryEngineOptions {
	/** Overrides `MEMORY_STORE_URL`. */
	storeUrl?: string;
	/** A Keyv the host already has; the engine then never closes it. */
	keyv?: Keyv;
	/** Overrides the environment, field by field. */
	config?: Partial<MemoryConfig>;
	/** The clock, in milliseconds since the epoch. @default Date.now */
	now?: () => number;
	/** @default console */
	logger?: MemoryLogger;
	/** The environment to read settings from. @default process.env */
	env?: NodeJS.ProcessEnv;
	/**
	 * Told when the store becomes unreachable (once per outage, with its first failure) and when it is
	 * back (once). Without it the engine logs both through `logger`.
	 */
	onStoreHealth?: (change: StoreHealthChange) => void;
}

/** Counters an operator can watch. */
export interface MemoryCounters {
	turnsRecorded: number;
	turnsSkipped: Record<SkipReason, number>;
	/** Turns not captured because the store failed (`recordTurn` rejected with `STORE_UNAVAILABLE` or `STORE_FAILURE`). */
	turnsFailed: number;
	contextsBuilt: number;
	/** Contexts the store failed to give (the Sapphire layer then injects an empty one). */
	contextsFailed: number;
	/** Whether the store answers, and its outages. */
	store: StoreHealthCounters;
	/** Changes to keys shard processes share (user and author indexes, registries) that another process wrote over, found on reading them back and made again. */
	sharedWritesRepaired: number;
	/** The background summarizer's calls, answers, caps, tokens and cost (`enabled: false` when it is off). */
	summarizer: SummarizerCounters;
	/** Sweeps completed and failed, and what the last one deleted. */
	sweeps: SweepCounters;
	/**
	 * BPE tokens injected, summed over the contexts built: per tier (`ContextBlock['tier']`), and
	 * `total`, the sum of `MemoryContext['tokens']` (the tiers and the blank lines between them).
	 */
	tokensInjected: Record<ContextTier, number> & { total: number };
	/** How long engine calls took, measured with `performance.now()` around the whole call (validation included). */
	latency: {
		/** `recordTurn`: every call, whether it wrote, skipped or failed. */
		capture: LatencyHistogram;
		/** `buildContext`: every call, whether it built a context or failed. */
		context: LatencyHistogram;
	};
}

/**
 * Conversation memory for persona bots: capture each turn, hand back a token-budgeted context.
 * @example
 * const memory = await MemoryEngine.open({ storeUrl: 'sqlite://./data/memory.sqlite' });
 * await memory.recordTurn({ userId, serverId, channelId, history, responses });
 * const { text } = await memory.buildContext({ userId, serverId, channelId, personaId, query: message.content });
 */
export class MemoryEngine {
	public readonly config: Readonly<MemoryConfig>;
	private readonly store: MemoryStore;
	private readonly archive: Archive;
	private readonly settings: SettingsRepository;
	private readonly directory: ScopeDirectory;
	private readonly authors: AuthorIndex;
	private readonly account: Account.AccountDependencies;
	/** Captures in flight: an erasure waits for those that started before it. */
	private readonly captures = new Set<Promise<RecordTurnResult>>();
	private readonly summaries: SummaryWriter;
	private readonly now: () => number;
	private readonly counters: Omit<MemoryCounters, 'store' | 'sharedWritesRepaired' | 'latency'> = {
		turnsRecorded: 0,
		turnsSkipped: { 'stop-response': 0, 'empty-history': 0, 'privacy-full': 0, 'no-response': 0 },
		turnsFailed: 0,
		contextsBuilt: 0,
		contextsFailed: 0,
		summarizer: summarizerCounters(false),
		sweeps: { runs: 0, failures: 0, last: null },
		tokensInjected: { profile: 0, nudge: 0, summary: 0, relevant: 0, recent: 0, total: 0 }
	};
	private readonly latency = { capture: new LatencyRecorder(), context: new LatencyRecorder() };
	/** Null unless `MEMORY_LLM_BASE_URL` is set. */
	private readonly summarizer: BackgroundSummarizer | null;
	private readonly sweeps: SweepSchedule;
	private readonly registry: Registry;

	private closed = false;

	private constructor(store: MemoryStore, config: MemoryConfig, now: () => number, logger: MemoryLogger) {
		this.config = Object.freeze(config);
		this.store = store;
		this.now = now;
		const getConfig = () => this.config;
		const registry = (this.registry = new Registry(store));
		this.archive = new Archive(store, () => this.config.archiveRetentionDays * 86_400_000, {
			registry,
			graceMs: () => keptPastExpiryMs(this.config),
			maxCachedBytes: this.config.indexCacheMb * 2 ** 20
		});
		this.settings = new SettingsRepository(store);
		this.directory = new ScopeDirectory(store, getConfig, registry);
		this.authors = new AuthorIndex(store, registry, AUTHOR_FLUSH_MS, undefined, (error) => {
			if (!isOutage(error)) logger.error('[memory] writing author counts failed:', error);
		});
		this.account = {
			store,
			archive: this.archive,
			settings: this.settings,
			directory: this.directory,
			authors: this.authors,
			config: getConfig,
			settled: async () => void (await Promise.allSettled([...this.captures]))
		};
		this.summaries = new SummaryWriter(store, this.settings, this.directory, getConfig);
		this.counters.summarizer.enabled = config.llmBaseUrl !== null;
		this.summarizer =
			config.llmBaseUrl === null
				? null
				: new BackgroundSummarizer({
						store,
						archive: this.archive,
						settings: this.settings,
						config: getConfig,
						now,
						logger,
						counters: this.counters.summarizer
					});
		const sweepDependencies = { store, archive: this.archive, directory: this.directory, authors: this.authors, registry, config: getConfig };
		this.sweeps = new SweepSchedule({
			store,
			sweep: (at) => sweep(sweepDependencies, at),
			now,
			intervalMs: config.sweepIntervalMinutes * 60_000,
			logger,
			counters: this.counters.sweeps
		});
	}

	/**
	 * Validates the configuration and opens the store.
	 * @throws MemoryError `INVALID_CONFIG` for a bad setting, `STORE_UNAVAILABLE` when the store cannot be reached.
	 */
	public static async open(options: MemoryEngineOptions = {}): Promise<MemoryEngine> {
		const config = resolveConfig({ ...options.config, ...(options.storeUrl === undefined ? {} : { storeUrl: options.storeUrl }) }, options.env);
		const store = await MemoryStore.open({
			storeUrl: config.storeUrl,
			namespace: config.storeNamespace,
			keyv: options.keyv,
			timeoutMs: config.storeTimeoutMs,
			sqliteSynchronous: config.sqliteSynchronous
		});
		const logger = options.logger ?? console;
		store.health.onChange(options.onStoreHealth ?? logStoreHealth(logger));
		const engine = new MemoryEngine(store, config, options.now ?? Date.now, logger);
		engine.sweeps.start();
		return engine;
	}

	/** Captures one finished turn; see DESIGN.md's Capture section for what is kept. */
	public async recordTurn(turn: MemoryTurn): Promise<RecordTurnResult> {
		this.assertOpen();
		const started = performance.now();
		const written: [string, ShortTermEntry][] = [];
		let capture: Promise<RecordTurnResult> | undefined;
		try {
			const parsed = parseInput(MemoryTurnSchema, turn, 'turn') as MemoryTurn;
			const onLiveWrite = this.summarizer ? (key: string, entry: ShortTermEntry) => void written.push([key, entry]) : undefined;
			capture = recordTurn({ ...this.account, onSkip: (reason) => this.counters.turnsSkipped[reason]++, onLiveWrite }, parsed, this.now());
			this.captures.add(capture);
			const result = await capture;
			if (result.written) this.counters.turnsRecorded++;
			return result;
		} catch (error) {
			if (isStoreError(error)) this.counters.turnsFailed++;
			throw error;
		} finally {
			if (capture) this.captures.delete(capture);
			// Only queued, once the turn is stored: the summarizer's worker starts after this call has returned.
			for (const [key, entry] of written) this.summarizer?.offer(key, entry);
			this.latency.capture.observe(performance.now() - started);
		}
	}

	/** The context to inject before the next generation, within the token budget. */
	public async buildContext(request: ContextRequest): Promise<MemoryContext> {
		this.assertOpen();
		const started = performance.now();
		try {
			const parsed = parseInput(ContextRequestSchema, request, 'context request') as ContextRequest;
			const context = await buildContext(
				{ store: this.store, archive: this.archive, settings: this.settings, config: () => this.config },
				parsed,
				this.now()
			);
			this.counters.contextsBuilt++;
			const injected = this.counters.tokensInjected;
			for (const block of context.blocks) injected[block.tier] += block.tokens;
			injected.total += context.tokens;
			return context;
		} catch (error) {
			if (isStoreError(error)) this.counters.contextsFailed++;
			throw error;
		} finally {
			this.latency.context.observe(performance.now() - started);
		}
	}

	/** Changes a user's settings; a user who leaves MINIMAL loses their profile and topics, which they may no longer keep. */
	public async setUserSettings(userId: string, patch: Partial<UserSettings>): Promise<UserSettings> {
		this.assertOpen();
		const settings = await this.settings.setUser(userId, patch, this.now());
		if (settings.privacyLevel !== PrivacyLevel.MINIMAL) await LongTerm.eraseLongTerm(this.store, userId);
		return settings;
	}

	public async getUserSettings(userId: string): Promise<UserSettings> {
		this.assertOpen();
		assertId('userId', userId);
		return { ...(await this.settings.user(userId)) };
	}

	public async setServerSettings(serverId: string, patch: Partial<ServerSettings>): Promise<ServerSettings> {
		this.assertOpen();
		return this.settings.setServer(serverId, patch);
	}

	public async getServerSettings(serverId: string): Promise<ServerSettings> {
		this.assertOpen();
		assertId('serverId', serverId);
		return { ...(await this.settings.server(serverId)) };
	}

	/**
	 * Stores the summary the persona's LLM wrote with `update_short_term_memory`, in the user scope
	 * and, outside DMs, the server scope. `input` is the summary string or the tool's arguments
	 * (`{ summary }`, or one string per category when the server set `summaryCategories`).
	 * Rejects with `INVALID_INPUT` (a message the LLM can read).
	 */
	public async updateShortTermMemory(
		target: SummaryTarget,
		input: unknown
	): Promise<{ summary: string; categories: Record<string, string> | null; keys: string[] }> {
		this.assertOpen();
		return this.summaries.write(target, input, this.now());
	}

	/**
	 * Saves what the persona's LLM asked to `remember` about a user: a preference, a note, a tag or a
	 * topic note. Refused with `PRIVACY_REFUSED` for PARTIAL and FULL users; `INVALID_INPUT` otherwise.
	 */
	public async remember(userId: string, input: unknown): Promise<{ kind: RememberArguments['kind']; saved: string }> {
		this.assertOpen();
		const { kind, name, text } = parseRemember(input);
		if (kind === 'topic') return { kind, saved: (await this.saveTopic(userId, name!, text)).slug };
		const patch = kind === 'preference' ? { preferences: { [name!.trim()]: text } } : kind === 'note' ? { notes: [text] } : { tags: [text] };
		await this.updateProfile(userId, patch);
		return { kind, saved: kind === 'preference' ? name!.trim() : text.trim() };
	}

	/** A moderator's wipe of everything remembered in one guild channel. */
	public async wipeChannel(serverId: string, channelId: string): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
		this.assertOpen();
		assertId('serverId', serverId);
		assertId('channelId', channelId);
		return this.erasing(() => wipeChannel(this.store, this.directory, this.archive, serverId, channelId, this.now()));
	}

	/**
	 * `/session status`: what memory holds about the user. With `where`, `current` describes the
	 * live memory of that channel (server scope in a guild, user scope in a DM) when there is one.
	 */
	public async status(userId: string, where?: StatusLocation): Promise<MemoryStatus> {
		this.assertOpen();
		assertId('userId', userId);
		const location = where === undefined ? undefined : (parseInput(StatusLocationSchema, where, 'status location') as StatusLocation);
		return Account.status(this.account, userId, location, this.now());
	}

	/** `/session clear`: the user's short-term memory, and their messages in shared channel memories. */
	public async clearShortTerm(userId: string): Promise<ClearShortTermResult> {
		this.assertOpen();
		assertId('userId', userId);
		return this.erasing(() => Erasure.clearShortTerm(this.account, userId, this.now()));
	}

	/**
	 * `/session clear all`: erases everything of the user (see {@link Erasure.clearAll}) and keeps
	 * capture from storing again anything they wrote before now.
	 */
	public async clearAll(userId: string): Promise<ClearAllResult> {
		this.assertOpen();
		assertId('userId', userId);
		return this.erasing(() => Erasure.clearAll(this.account, userId, this.now()));
	}

	/**
	 * Messages were edited or deleted on Discord: every background summary citing one of them is
	 * marked stale (the digest serves again) and its scope is queued to be summarized again.
	 * @example
	 * await memory.messagesChanged({ serverId: message.guildId, channelId: message.channelId, messageIds: [message.id], kind: 'deleted' });
	 */
	public async messagesChanged(change: MessagesChange): Promise<{ summariesMarkedStale: number }> {
		this.assertOpen();
		const parsed = parseInput(MessagesChangeSchema, change, 'message change') as MessagesChange;
		// First, so that an answer citing them which lands while the stored ones are marked is not kept.
		this.summarizer?.invalidateCiting(parsed.messageIds);
		const marked = await markSummariesStale(this.store, this.config, parsed, this.now());
		this.summarizer?.rebuild(marked);
		this.counters.summarizer.markedStale += marked.length;
		return { summariesMarkedStale: marked.length };
	}

	/** Resolves once the background summarizer has nothing running or queued to run now (for scripts and tests). */
	public async summarizerIdle(): Promise<void> {
		await this.summarizer?.whenIdle();
	}

	/** `/session export`: everything stored about the user, and nothing about anyone else, as plain JSON-able data. */
	public async exportUser(userId: string): Promise<UserExport> {
		this.assertOpen();
		assertId('userId', userId);
		return Account.exportUser(this.account, userId, this.now());
	}

	/** The user's long-term profile; null when none (always for PARTIAL and FULL users). */
	public async getProfile(userId: string): Promise<UserProfile | null> {
		this.assertOpen();
		assertId('userId', userId);
		return LongTerm.getProfile(this.account, userId);
	}

	/**
	 * Merges a change into the user's profile (MINIMAL users only: others get `PRIVACY_REFUSED`).
	 * @example
	 * await memory.updateProfile(userId, { preferences: { pronouns: 'she/her' }, tags: ['jazz'] });
	 */
	public async updateProfile(userId: string, patch: ProfilePatch): Promise<UserProfile> {
		this.assertOpen();
		assertId('userId', userId);
		return LongTerm.updateProfile(this.account, userId, patch, this.now());
	}

	/**
	 * Saves (or replaces) a topic note under the slug of its title (MINIMAL users only).
	 * @example
	 * await memory.saveTopic(userId, 'Trip to Porto', 'Flights booked for June 3.'); // slug "trip-to-porto"
	 */
	public async saveTopic(userId: string, title: string, note: string): Promise<TopicNote>;
	/** The same, with the arguments as the LLM's tool call passes them. */
	public async saveTopic(userId: string, topic: { title: string; note: string }): Promise<TopicNote>;
	public async saveTopic(userId: string, titleOrTopic: string | { title: string; note: string }, note?: string): Promise<TopicNote> {
		this.assertOpen();
		assertId('userId', userId);
		const topic = typeof titleOrTopic === 'object' && titleOrTopic !== null ? titleOrTopic : { title: titleOrTopic, note };
		return LongTerm.saveTopic(this.account, userId, topic.title, topic.note, this.now());
	}

	/** The user's topics, newest first. */
	public async listTopics(userId: string): Promise<TopicListing[]> {
		this.assertOpen();
		assertId('userId', userId);
		return LongTerm.listTopics(this.account, userId);
	}

	/** One topic by slug or title; null when none. */
	public async getTopic(userId: string, slug: string): Promise<TopicNote | null> {
		this.assertOpen();
		assertId('userId', userId);
		return LongTerm.getTopic(this.account, userId, slug);
	}

	/** Deletes one topic by slug or title; false when there was none. */
	public async forgetTopic(userId: string, slug: string): Promise<boolean> {
		this.assertOpen();
		assertId('userId', userId);
		return LongTerm.forgetTopic(this.account, userId, slug);
	}

	/** A snapshot of the counters, plain JSON-able data. */
	public stats(): MemoryCounters {
		return structuredClone({
			...this.counters,
			store: this.store.health.counters,
			sharedWritesRepaired: this.store.readBack.repairs,
			latency: { capture: this.latency.capture.snapshot(), context: this.latency.context.snapshot() }
		});
	}

	/**
	 * For operators (`sapphire-memory stats`): the store's keys counted by kind, its size, and the
	 * archive's span. It reads the whole namespace: never call it on the reply path.
	 */
	public async inventory(): Promise<StoreInventory> {
		this.assertOpen();
		return takeInventory(this.store, this.config);
	}

	/**
	 * For operators (`sapphire-memory inspect --channel`): the live memory of one channel, every
	 * persona's: entries, summaries, digests and archives. It scans the namespace's keys: never call it on the reply path.
	 */
	public async inspectChannel(query: ChannelQuery): Promise<ChannelInspection> {
		this.assertOpen();
		assertId('channelId', query.channelId);
		if (typeof query.serverId === 'string') assertId('serverId', query.serverId);
		return inspectChannel({ store: this.store, archive: this.archive, config: this.config }, query, this.now());
	}

	/**
	 * Deletes what has expired: short-term entries past their TTL, archived messages past
	 * `MEMORY_ARCHIVE_RETENTION_DAYS` and what was derived from them. Runs by itself every
	 * `MEMORY_SWEEP_INTERVAL_MINUTES`; a call while a sweep runs joins it.
	 * @example
	 * const { entriesDeleted, chunksDeleted, durationMs } = await memory.sweep();
	 */
	public async sweep(): Promise<SweepResult> {
		this.assertOpen();
		return this.sweeps.sweep();
	}

	/** Stops the sweep timer and waits for a sweep and writes in flight, then closes the store (unless the host passed its own Keyv). */
	public async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		await this.sweeps.stop();
		// Before the store goes: the worker reads and writes it.
		await this.summarizer?.close();
		while (this.store.lock.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
		this.archive.clearCache();
		// Author counts held in memory are written before the store goes, and registry ids read back.
		// A store that is down loses the counts, not the close.
		await this.authors.flush().catch(() => undefined);
		this.authors.stop();
		await this.registry.settled();
		await this.store.close();
	}

	/** Runs an erasure so that a background summary written meanwhile cannot bring the erased words back. */
	private erasing<T>(erase: () => Promise<T>): Promise<T> {
		return this.summarizer ? this.summarizer.whileErasing(erase) : erase();
	}

	private assertOpen(): void {
		if (this.closed) throw new MemoryError('CLOSED', 'The memory engine is closed.');
	}
}

function isStoreError(error: unknown): boolean {
	return error instanceof MemoryError && (error.code === 'STORE_UNAVAILABLE' || error.code === 'STORE_FAILURE');
}

/** The default of `onStoreHealth`: one line when an outage starts, one when it ends. */
function logStoreHealth(logger: MemoryLogger): (change: StoreHealthChange) => void {
	return (change) => {
		if (change.available)
			logger.warn(`[memory] the store is back after ${(change.downMs / 1000).toFixed(1)} s; ${change.failedCalls} calls failed meanwhile.`);
		else
			logger.error(
				`[memory] the store is unreachable (${change.error.message}); replies go on without memory and turns are not captured until it is back.`
			);
	};
}
