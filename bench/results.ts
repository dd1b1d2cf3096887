import type { BackendName, BenchPlan, SectionName } from './options';
import type { LatencySummary } from './stats';

/** The machine the figures were taken on. */
export interface MachineInfo {
	cores: number;
	cpuModel: string;
	totalMemoryBytes: number;
	node: string;
	platform: string;
	/** os.loadavg() when the run started: 1, 5 and 15 minutes. */
	loadAverage: number[];
	/** ISO 8601, when the run started. */
	date: string;
}

/** p50 and p99 ratios of two latency summaries. */
export interface LatencyRatio {
	p50: number;
	p99: number;
}

export interface ThroughputResult {
	/** `recordTurn` calls kept in flight, one per channel. */
	inFlight: number;
	seconds: number;
	resolved: number;
	failed: number;
	turnsPerSecond: number;
	firstError?: string;
}

/** What a store grew by while the bench wrote `messages` messages into it. */
export interface StorageGrowth {
	beforeBytes: number | null;
	afterBytes: number | null;
	messages: number;
	bytesPer100kMessages: number | null;
	/** What the bytes are. */
	measures: string;
}

/** The naive reference's figures on the same turns and queries as the engine's. */
export interface NaiveFigures {
	recordTurn: LatencySummary;
	buildContext: LatencySummary;
	/** Engine / naive. */
	oursOverNaive: { recordTurn: LatencyRatio; buildContext: LatencyRatio };
}

/** recordTurn and buildContext on the same work, without and with MEMORY_ENCRYPTION_KEY (bench/sections/encryption.ts). */
export interface EncryptionResult {
	backend: BackendName;
	error?: string;
	channelMessages?: number;
	plain?: { recordTurn: LatencySummary; buildContext: LatencySummary };
	sealed?: { recordTurn: LatencySummary; buildContext: LatencySummary };
}

/** One `/session` operation on the slow store: its store calls and how long it took. */
export interface SessionOperationResult {
	operation: string;
	calls: number;
	ms: number;
}

/** The `/session` operations for members of each size (bench/sections/session.ts). */
export interface SessionResult {
	delayMs: number;
	sizes: { memberTurns: number; operations: SessionOperationResult[] }[];
}

/** One kind of traffic of the hostile section (bench/sections/hostile.ts): its calls and the event loop's longest block. */
export interface HostileRow {
	kind: string;
	recordTurn: LatencySummary;
	buildContext: LatencySummary;
	/** `monitorEventLoopDelay`'s largest delay while the kind ran, in ms. */
	longestBlockMs: number;
}

export interface HostileResult {
	/** Messages of a hostile turn, and characters of each. */
	turnMessages: number;
	messageChars: number;
	samples: number;
	rows: HostileRow[];
	/** The row whose turns hold the longest history a turn may (capture reads its newest messages), and that history's length. */
	longHistory?: { kind: string; messages: number };
}

export interface BackendLatencyResult {
	backend: BackendName;
	skipped?: string;
	error?: string;
	channelMessages?: number;
	seedSeconds?: number;
	recordTurn?: LatencySummary;
	/** Reopening the engine on the seeded store before the first context, so that it loads the channel cold. */
	reopenMs?: number;
	firstContextMs?: number;
	/** The contexts after the first, while V8 compiles the context path; `buildContext` are the ones after them. */
	warmupContexts?: LatencySummary;
	buildContext?: LatencySummary;
	throughput?: ThroughputResult;
	storage?: StorageGrowth;
	naive?: NaiveFigures;
	forgetting?: ForgettingResult;
	/** recordTurn with and without keeping what the reply's context drew on (bench/sections/sourceRecords.ts). */
	sourceRecords?: SourceRecordsResult;
}

/** What keeping a reply's context sources adds to `recordTurn`, measured side by side in the latency section's channel. */
export interface SourceRecordsResult {
	/** recordTurn of a turn no context was built for: nothing to keep. */
	alone: LatencySummary;
	/** recordTurn of a turn whose context was built first (not timed): it also stores what the reply drew on. */
	afterContext: LatencySummary;
}

/** One registry size of the registry-scale section (bench/sections/registryScale.ts); times in ms. */
export interface RegistryScalePoint {
	/** Members registered (and with a user directory) before the timed turns. */
	members: number;
	/** Seconds the seeding of this size's new members took, through the store. */
	seedSeconds: number;
	/** A new member's first `recordTurn`, each sample a member never seen. */
	firstTurn: LatencySummary;
	/** This size's median first turn over the first size's, measured in the same run. */
	ratioToFirst: number;
	/** One sweep over the store: every registry walked in slices, every seeded directory read. */
	sweepMs: number;
}

/** The registry-scale section on one backend. */
export interface RegistryScaleResult {
	backend: BackendName;
	skipped?: string;
	error?: string;
	points: RegistryScalePoint[];
}

/** What forgetting costs in the latency section's channel (see bench/sections/forgetting.ts). */
export interface ForgettingResult {
	/** One message deleted on Discord, by id (`messagesChanged`), each a different message. */
	deleteOne: LatencySummary;
	/** Copies the deletions took out of the archive: each message and the persona's reply to it. */
	archivedMessagesRemoved: number;
	/** One member of the channel erased whole (`clearAll`), once, and the longest block of the event loop meanwhile. */
	eraseMember: { ms: number; longestBlockMs: number; archivedMessagesRemoved: number };
	/** A server of 100 channels (5 turns each) purged (`purgeServer`), once. */
	purgeServer: { ms: number; channels: number; archivedMessagesDeleted: number };
}

/** One channel size of the forgetting-at-scale section (bench/sections/forgettingScale.ts); times in ms. */
export interface ForgettingScalePoint {
	/** Messages the channel held once seeded: Maya's 100 turns among the 49 other members' talk. */
	messages: number;
	seedSeconds: number;
	/** Turns recorded after the seeding, one member message and the persona's reply each: the reference. */
	recordTurn: LatencySummary;
	/** One of the other members' messages deleted on Discord (`messagesChanged`), each a different one from the middle. */
	deleteOne: LatencySummary;
	/** The event loop's longest block over those deletions. */
	deleteBlockMs: number;
	/** Copies those deletions took out of the archive. */
	deleteArchivedRemoved: number;
	/** The messages after them deleted in one `messagesChanged` call. */
	bulkDelete: { messages: number; ms: number; longestBlockMs: number; archivedMessagesRemoved: number };
	/** Maya erased whole (`clearAll`), once. */
	clearAll: { ms: number; longestBlockMs: number; archivedMessagesRemoved: number };
	/**
	 * Then `deletedIds` more messages deleted in calls of 1,000, as a moderation bot removes spam (ids memory never
	 * stored), and the same turns and deletions timed again: what a turn and a deletion cost in a channel that lost many.
	 */
	afterSpam: { deletedIds: number; recordTurn: LatencySummary; deleteOne: LatencySummary };
}

/** What forgetting the same things costs as one backend's channel grows. */
export interface ForgettingScaleResult {
	backend: BackendName;
	skipped?: string;
	error?: string;
	points: ForgettingScalePoint[];
	/** Largest channel / smallest channel. */
	growth?: { from: number; to: number; deleteOne: number; deleteBlock: number; clearAll: number; clearAllBlock: number };
}

/** One kind of key that more than one shard process wrote during the turns (bench/sections/shards.ts). */
export interface ShardKeyKind {
	/** As src/engine/store/keyKinds.ts names it. */
	kind: string;
	/** Keys of this kind written by more than one process. */
	keys: number;
	/** Of those, written by every process: a member's own keys (user directory, author index) aside, the hot keys. */
	hot: number;
	/** Of the hot keys, those written by a compare-and-set. */
	hotCompareAndSet: number;
	/** A member's own keys written by every process: members who talked in servers of every shard. */
	memberOwn: number;
	/** Writes of these keys, over all processes, and compare-and-sets of them that found the key changed. */
	writes: number;
	retries: number;
	/** The adapter methods that wrote them. */
	operations: string[];
}

/** Shard processes recording at once on one store (bench/sections/shards.ts). */
export interface ShardsResult {
	backend: BackendName;
	skipped?: string;
	error?: string;
	processes?: number;
	/** recordTurn calls that resolved, over all processes, and those that failed. */
	turns?: number;
	failedTurns?: number;
	firstError?: string;
	/** From the barrier until the last process's last turn. */
	seconds?: number;
	recordTurn?: LatencySummary;
	/** Conditional writes (each key of a many-key compare-and-set counts) and those that found the key changed: a retry follows each. */
	compareAndSets?: number;
	retries?: number;
	retriesPerTurn?: number;
	/** Keys written during the turns by any process, by more than one, and by every one (a member's own keys aside). */
	keysWritten?: number;
	sharedKeys?: number;
	hotKeys?: number;
	/** Of the hot keys, those written by a compare-and-set (a read-modify-write that may retry), not by blind set adds alone. */
	hotCompareAndSet?: number;
	/** The hot keys, each run of digits in them written `#` (`registry:users:#`), and how many keys each pattern covers. */
	hotPatterns?: Record<string, number>;
	/** Write calls on the adapter by method, over all processes (`sets.add`: a native set's blind add). */
	calls?: Record<string, number>;
	/** Kinds of the keys more than one process wrote, the most written first. */
	kinds?: ShardKeyKind[];
	/**
	 * What the check after the run found missing: turns with a message missing from its member's archives, those messages,
	 * and conversations missing from the member's directory.
	 */
	lost?: { turns: number; messages: number; conversations: number; members: number; checkedMessages: number; seconds: number };
}

export interface ScalePoint {
	size: number;
	firstContextMs: number;
	/** The contexts after the first, before the timed ones. */
	warmupContexts: LatencySummary;
	buildContext: LatencySummary;
	/** Timed after the contexts, as the channel grows from `size` by two messages a turn. */
	recordTurn: LatencySummary;
	naive?: NaiveFigures;
}

/** The first context after a restart in one channel, and what follows (bench/sections/coldStart.ts). */
export interface ColdStartRow {
	/** Words the channel's messages are drawn from; null for ordinary chat. */
	vocabulary: number | null;
	size: number;
	/** The first context after the engine opened. */
	coldMs: number;
	/** The longest block of the event loop during it. */
	coldBlockMs: number;
	/** Contexts while the older messages are indexed in the background. */
	duringIndexing: LatencySummary;
	/** From the first context's end until the background indexing is done. */
	indexedMs: number;
	/** Steady contexts, after it. */
	warm: LatencySummary;
	/** What the process's heap and buffers grew by from before the engine opened (after a collection). */
	heapGrowthBytes: number;
	rssBytes: number;
	/** The longest block of the event loop over the whole channel's run. */
	longestBlockMs: number;
}

export interface NaiveRow {
	where: string;
	messages: number;
	recordTurn: LatencySummary;
	buildContext: LatencySummary;
	naive: NaiveFigures;
}

/** Disk (or server memory) a store takes per 100,000 messages. */
export interface StorageRow extends StorageGrowth {
	store: string;
}

export interface ScaleResult {
	storeMessages: number;
	channels: number;
	servers: number;
	seedTurns: number;
	seedSeconds: number;
	storage: StorageGrowth;
	points: ScalePoint[];
	coldStarts: ColdStartRow[];
	/** Largest size / smallest size. */
	growth: {
		from: number;
		to: number;
		recordTurn: LatencyRatio;
		buildContext: LatencyRatio;
		naive?: { recordTurn: LatencyRatio; buildContext: LatencyRatio };
	};
}

export interface MemoryReading {
	rss: number;
	heapUsed: number;
}

export interface MemoryResult {
	/** What ran the measurement. */
	runtime: string;
	channels: number;
	servers: number;
	turns: number;
	contexts: number;
	gcAvailable: boolean;
	/** The bare process, before the engine's modules were loaded. */
	processStart: MemoryReading;
	/** After opening the engine on an empty store, before any turn. */
	before: MemoryReading;
	/** With every channel active: all turns recorded and one context built in each, engine still open. */
	after: MemoryReading;
	/**
	 * The same process left idle until its RSS stops falling: V8 keeps the room garbage took as heap and
	 * hands it back to the system once allocation stops (its memory reducer), a few seconds later.
	 */
	settled: MemoryReading & { waitedSeconds: number };
	seconds: number;
	recordTurn: LatencySummary;
	buildContext: LatencySummary;
}

/** Answer turns found and in all. */
export interface RecallCount {
	found: number;
	answerTurns: number;
}

/** One budget of one evaluation set, its conversations summed. */
export interface RecallPoint {
	budget: number;
	/** As a bot that lived through the conversations asks: the index whole, a turn of the event loop between questions. */
	steady: RecallCount;
	/** A fresh engine that recorded each conversation in a loop of awaits, asked right after in a loop of awaits. */
	burst: RecallCount;
	/** A plain BM25 over every message (MiniSearch, no stemming, no stop words), its best hits packed whole into the budget. */
	plainBm25: RecallCount;
	maxContextTokens: number;
	/** Steady state, by question kind. */
	byKind: Record<string, RecallCount>;
	/** Steady state, by where the answer turn sits in its conversation: first, middle, last third. */
	byThird: RecallCount[];
}

/** One evaluation set. */
export interface RecallSetResult {
	name: string;
	conversations: number;
	sessions: number;
	messages: number;
	turns: number;
	questions: number;
	fullHistoryTokens: number;
	points: RecallPoint[];
}

export interface RecallResult {
	sets: RecallSetResult[];
	/** Sets not measured in this run, and why (the LoCoMo files not given). */
	skipped: { name: string; reason: string }[];
}

export interface TargetCheck {
	name: string;
	target: string;
	value: number | null;
	shown: string;
	status: 'PASS' | 'MISS' | 'QUICK' | 'NOT RUN';
}

export interface BenchResults {
	machine: MachineInfo;
	mode: 'full' | 'quick';
	sections: SectionName[];
	backends: BackendName[];
	/** The sizes and sample counts of this mode. */
	parameters: Pick<
		BenchPlan,
		'latency' | 'encryption' | 'session' | 'hostile' | 'scale' | 'forgettingScale' | 'registryScale' | 'shards' | 'memory' | 'recall'
	>;
	durationSeconds?: number;
	sectionSeconds: Partial<Record<SectionName, number>>;
	latency?: BackendLatencyResult[];
	encryption?: EncryptionResult[];
	session?: SessionResult;
	hostile?: HostileResult;
	scale?: ScaleResult;
	forgettingScale?: ForgettingScaleResult[];
	registryScale?: RegistryScaleResult[];
	shards?: ShardsResult[];
	/** Naive reference rows, the engine's figures next to them (copied from latency and scale). */
	naive?: NaiveRow[];
	memory?: { activeChannels?: MemoryResult; storage: StorageRow[] };
	recall?: RecallResult;
	targets?: TargetCheck[];
	/** Sections that threw, with the error. */
	errors: { section: string; error: string }[];
}
