import type { AccountParts } from './account/AccountParts';
import { Accounts } from './account/Accounts';
import { Erasures } from './account/Erasures';
import { TurnRecorder } from './capture/TurnRecorder';
import { ContextBuilder } from './context/ContextBuilder';
import { PendingSources } from './context/PendingSources';
import { ContextSourceRecords } from './records/contextSourceRecords';
import { Operators } from './maintenance/Operators';
import { Archive } from './archive/Archive';
import { ChannelArchives } from './archive/ChannelArchives';
import { CapturesInFlight } from './capture/CapturesInFlight';
import { ReplyCalls } from './ReplyCalls';
import type { CaptureParts } from './capture/CaptureParts';
import { type MemoryConfig, resolveConfig } from './config';
import type { ContextParts } from './context/ContextParts';
import { isOutage } from './errors';
import { OpenRecords } from './records/openRecords';
import type { RecordStore } from './records/RecordStore';
import type { Registry } from './records/Registry';
import { AUTHOR_FLUSH_MS, AuthorIndex } from './ledger/AuthorIndex';
import { MessageLedger } from './ledger/MessageLedger';
import { ScopeDirectory } from './ledger/ScopeDirectory';
import { sweep } from './maintenance/sweep';
import { ServerPurges } from './maintenance/ServerPurges';
import { SweepSchedule } from './maintenance/SweepSchedule';
import type { MemoryEngineOptions } from './MemoryEngineOptions';
import { logStoreHealth, type MemoryLogger } from './MemoryLogger';
import { SettingsRepository } from './records/SettingsRepository';
import { EngineStats } from './stats/EngineStats';
import { keptPastExpiryMs } from './records/grace';
import { keepTokenizerCompiled } from './format/tokens';
import { prepareFirstContext } from './context/firstContext';
import { BackgroundSummarizer } from './summaries/BackgroundSummarizer';
import { SummaryWriter } from './summaries/SummaryWriter';
import { settingWarnings } from './settingWarnings';

const DAY = 86_400_000;

/** Every part of an open engine, wired once from the store, the frozen configuration, the clock and the logger. */
export class EngineParts {
	public readonly registry: Registry;
	public readonly archive: Archive;
	public readonly settings: SettingsRepository;
	public readonly ledger: MessageLedger;
	public readonly captures = new CapturesInFlight();
	public readonly stats: EngineStats;
	public readonly summaries: SummaryWriter;
	/** Null unless `MEMORY_LLM_BASE_URL` is set. */
	public readonly summarizer: BackgroundSummarizer | null;
	public readonly sweeps: SweepSchedule;
	/** Erasures of servers the bot was removed from. */
	public readonly purges: ServerPurges;
	/** What capture works with (the summarizer's queue is added per call). */
	public readonly capture: CaptureParts;
	public readonly context: ContextParts;
	public readonly account: AccountParts;
	/** Every erasure, and the protocol each runs. */
	public readonly erasures: Erasures;
	/** `/session`'s reads and the long-term memory the persona's LLM keeps. */
	public readonly accounts: Accounts;
	/** The two calls on the reply path. */
	public readonly turns: TurnRecorder;
	public readonly contexts: ContextBuilder;
	/** The operators' views of the store. */
	public readonly operators: Operators;
	public readonly store: RecordStore;
	private readonly stopKeepingTokenizer = keepTokenizerCompiled();
	private readonly logger: MemoryLogger;

	public constructor(
		private readonly opened: OpenRecords,
		/** recordTurn and buildContext running now: the archive's background indexing and the SQLite log's checkpoints yield to them. */
		public readonly replyCalls: ReplyCalls,
		public readonly config: MemoryConfig,
		public readonly now: () => number,
		logger: MemoryLogger
	) {
		const { records: store, registry } = opened;
		this.store = store;
		this.registry = registry;
		const archiveTtlMs = config.archiveRetentionDays * DAY + keptPastExpiryMs(config);
		const channelArchives = new ChannelArchives(store, archiveTtlMs);
		this.archive = new Archive(store, {
			registry,
			channels: channelArchives,
			retentionMs: config.archiveRetentionDays * DAY,
			graceMs: keptPastExpiryMs(config),
			maxCachedBytes: config.indexCacheMb * 2 ** 20,
			replyCalls: this.replyCalls
		});
		const settings = new SettingsRepository(store);
		this.settings = settings;
		const authors = new AuthorIndex(store, registry, AUTHOR_FLUSH_MS, undefined, (error) => {
			if (!isOutage(error)) logger.error('[memory] writing author counts failed:', error);
		});
		const ledger = new MessageLedger({
			store,
			config,
			archive: this.archive,
			channelArchives,
			registry,
			directory: new ScopeDirectory(store, config, registry),
			authors
		});
		this.ledger = ledger;
		this.stats = new EngineStats(config.llmBaseUrl !== null);
		this.summaries = new SummaryWriter(ledger, settings, config);
		this.summarizer =
			config.llmBaseUrl === null
				? null
				: new BackgroundSummarizer({ config, ledger, archive: this.archive, settings, now, logger, counters: this.stats.summarizer });
		this.purges = new ServerPurges({ ledger, registry, settings, config, erasing: (erase) => this.erasures.run(erase) });
		const { purges } = this;
		this.sweeps = new SweepSchedule({
			store,
			sweep: (at) => sweep({ ledger, registry, config, purges }, at),
			now,
			intervalMs: config.sweepIntervalMinutes * 60_000,
			logger,
			counters: this.stats.sweeps
		});
		// What each reply's context drew on: held from buildContext to recordTurn, then kept for the short-term TTL.
		const sources = { pending: new PendingSources(), records: new ContextSourceRecords(store, config.ttlHours * 3_600_000) };
		this.capture = {
			config,
			ledger,
			settings,
			sources,
			onSkip: (reason) => this.stats.skipped(reason),
			forgetAgain: async (userId, what, at) => {
				await this.erasures.run(() => ledger.forgetMember(userId, what, at));
			}
		};
		this.context = { store, archive: this.archive, settings, config };
		this.account = { store, config, ledger, settings, sources: sources.records, settled: () => this.captures.settled() };
		this.logger = logger;
		this.erasures = new Erasures({
			account: this.account,
			summarizer: this.summarizer,
			summarizerCounters: this.stats.summarizer,
			rewrites: opened.rewrites,
			now,
			logger
		});
		this.accounts = new Accounts(this.account, now);
		const { stats, captures, summarizer, capture, context } = this;
		this.turns = new TurnRecorder({ capture, captures, summarizer, stats, replyCalls, now });
		this.contexts = new ContextBuilder({ context, stats, replyCalls, pending: sources.pending, now });
		this.operators = new Operators({ store, archive: this.archive, config }, now);
	}

	/** Stops the sweep timer and the summarizer, waits for writes in flight, flushes what is held in memory, then closes the store. */
	public async close(): Promise<void> {
		await this.sweeps.stop();
		// Before the store goes: the worker reads and writes it.
		await this.summarizer?.close();
		while (this.store.busy > 0) await new Promise((resolve) => setTimeout(resolve, 5));
		this.archive.clearCache();
		// Loads of older messages find their index gone and stop: none reads the store once it is closed.
		await this.archive.indexingIdle();
		// Author counts held in memory are written before the store goes, and registry ids read back.
		// A store that is down loses the counts, not the close.
		await this.ledger.authors.flush().catch(() => undefined);
		this.ledger.authors.stop();
		this.stopKeepingTokenizer();
		await this.opened.close(this.logger);
	}

	/** Resolves the configuration, opens the store and wires the parts. */
	public static async open(options: MemoryEngineOptions): Promise<EngineParts> {
		const logger = options.logger ?? console;
		// Before the settings are read: a misspelt variable may be why a setting is refused or a default used.
		for (const warning of settingWarnings(options.env ?? process.env)) logger.warn(warning);
		const config = resolveConfig({ ...options.config, ...(options.storeUrl === undefined ? {} : { storeUrl: options.storeUrl }) }, options.env);
		const replyCalls = new ReplyCalls();
		const opened = await OpenRecords.open({
			config,
			keyv: options.keyv,
			logger,
			onStoreHealth: options.onStoreHealth ?? logStoreHealth(logger),
			replyCalls
		});
		prepareFirstContext();
		const parts = new EngineParts(opened, replyCalls, config, options.now ?? Date.now, logger);
		// Values sealed at start-up were plain: no page of an SQLite file keeps them.
		if (opened.sealedNow > 0) await parts.erasures.forgotten('rewrite');
		return parts;
	}
}
