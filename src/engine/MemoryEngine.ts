import type Keyv from 'keyv';
import { Archive } from './archive';
import { recordTurn } from './capture';
import { type MemoryConfig, resolveConfig } from './config';
import { buildContext } from './context';
import { ScopeDirectory } from './directory';
import { MemoryError } from './errors';
import { assertId, SettingsRepository } from './settings';
import { wipeChannel } from './moderation';
import { MemoryStore } from './store';
import { type SummaryTarget, SummaryWriter } from './summary';
import type { ContextRequest, MemoryContext, MemoryTurn, RecordTurnResult, ServerSettings, SkipReason, UserSettings } from './types';
import { ContextRequestSchema, MemoryTurnSchema, parseInput } from './validation';

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
}

/** Counters an operator can watch. */
export interface MemoryCounters {
	turnsRecorded: number;
	turnsSkipped: Record<SkipReason, number>;
	contextsBuilt: number;
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
	private readonly summaries: SummaryWriter;
	private readonly now: () => number;
	private readonly counters: MemoryCounters = {
		turnsRecorded: 0,
		turnsSkipped: { 'stop-response': 0, 'empty-history': 0, 'privacy-full': 0, 'no-response': 0 },
		contextsBuilt: 0
	};

	private closed = false;

	private constructor(store: MemoryStore, config: MemoryConfig, now: () => number) {
		this.config = Object.freeze(config);
		this.store = store;
		this.now = now;
		const getConfig = () => this.config;
		this.archive = new Archive(store, () => this.config.archiveRetentionDays * 86_400_000);
		this.settings = new SettingsRepository(store);
		this.directory = new ScopeDirectory(store, getConfig);
		this.summaries = new SummaryWriter(store, this.settings, this.directory, getConfig);
	}

	/**
	 * Validates the configuration and opens the store.
	 * @throws MemoryError `INVALID_CONFIG` for a bad setting, `STORE_UNAVAILABLE` when the store cannot be reached.
	 */
	public static async open(options: MemoryEngineOptions = {}): Promise<MemoryEngine> {
		const config = resolveConfig({ ...options.config, ...(options.storeUrl === undefined ? {} : { storeUrl: options.storeUrl }) }, options.env);
		const store = await MemoryStore.open({ storeUrl: config.storeUrl, namespace: config.storeNamespace, keyv: options.keyv });
		return new MemoryEngine(store, config, options.now ?? Date.now);
	}

	/** Captures one finished turn; see DESIGN.md's Capture section for what is kept. */
	public async recordTurn(turn: MemoryTurn): Promise<RecordTurnResult> {
		this.assertOpen();
		const parsed = parseInput(MemoryTurnSchema, turn, 'turn') as MemoryTurn;
		const result = await recordTurn(
			{
				store: this.store,
				archive: this.archive,
				settings: this.settings,
				directory: this.directory,
				config: () => this.config,
				onSkip: (reason) => this.counters.turnsSkipped[reason]++
			},
			parsed,
			this.now()
		);
		if (result.written) this.counters.turnsRecorded++;
		return result;
	}

	/** The context to inject before the next generation, within the token budget. */
	public async buildContext(request: ContextRequest): Promise<MemoryContext> {
		this.assertOpen();
		const parsed = parseInput(ContextRequestSchema, request, 'context request') as ContextRequest;
		const context = await buildContext({ store: this.store, archive: this.archive, settings: this.settings, config: () => this.config }, parsed, this.now());
		this.counters.contextsBuilt++;
		return context;
	}

	public async setUserSettings(userId: string, patch: Partial<UserSettings>): Promise<UserSettings> {
		this.assertOpen();
		return this.settings.setUser(userId, patch);
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
	 * and, outside DMs, the server scope. Rejects with `INVALID_INPUT` (a message the LLM can read).
	 */
	public async updateShortTermMemory(target: SummaryTarget, summary: unknown): Promise<{ summary: string; keys: string[] }> {
		this.assertOpen();
		return this.summaries.write(target, summary, this.now());
	}

	/** A moderator's wipe of everything remembered in one guild channel. */
	public async wipeChannel(serverId: string, channelId: string): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
		this.assertOpen();
		assertId('serverId', serverId);
		assertId('channelId', channelId);
		return wipeChannel(this.store, this.directory, serverId, channelId, this.now());
	}

	/** A snapshot of the counters. */
	public stats(): MemoryCounters {
		return structuredClone(this.counters);
	}

	/** Waits for writes in flight, then closes the store (unless the host passed its own Keyv). */
	public async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		while (this.store.lock.size > 0) await new Promise((resolve) => setTimeout(resolve, 5));
		this.archive.clearCache();
		await this.store.close();
	}

	private assertOpen(): void {
		if (this.closed) throw new MemoryError('CLOSED', 'The memory engine is closed.');
	}
}
