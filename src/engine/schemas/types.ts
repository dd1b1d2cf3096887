/** How much of a member the memory keeps. */
export enum PrivacyLevel {
	/** Captured; profile and topic notes may be stored and injected. */
	MINIMAL = 0,
	/** Conversation captured; no profile or topic notes. */
	PARTIAL = 1,
	/** Invisible: never captured, removed from any history before it is stored. */
	FULL = 2
}

/** One message of the history the bot used for a turn. */
export interface TurnMessage {
	role: 'user' | 'persona';
	authorId?: string;
	authorName?: string;
	text: string;
	messageId?: string;
	/** Milliseconds since the epoch; the turn's time when missing. */
	timestamp?: number;
}

/** One persona reply that Discord accepted. */
export interface TurnResponse {
	text: string;
	personaId?: string | null;
	personaLineageId?: string | null;
	personaName?: string;
	messageId?: string;
}

/** One finished generation turn, as the host bot saw it. */
export interface MemoryTurn {
	userId: string;
	userName?: string;
	/** Wins over the level stored with `setUserSettings`. */
	privacyLevel?: PrivacyLevel;
	/** `null` in a DM. */
	serverId: string | null;
	channelId: string;
	parentChannelId?: string | null;
	history: TurnMessage[];
	responses: TurnResponse[];
	isStopResponse?: boolean;
	/** Milliseconds since the epoch; the engine clock when missing. */
	timestamp?: number;
}

/** Why `recordTurn` wrote nothing. */
export type SkipReason = 'stop-response' | 'empty-history' | 'privacy-full' | 'no-response';

export interface RecordTurnResult {
	written: boolean;
	skippedReason?: SkipReason;
	/** The short-term keys written. */
	keys: string[];
}

/** Who is talking to which persona, and where: the conversation a context or a summary belongs to. */
export interface ConversationLocation {
	userId: string;
	/** `null` in a DM. */
	serverId: string | null;
	channelId: string;
	parentChannelId?: string | null;
	personaId?: string | null;
	personaLineageId?: string | null;
}

/** What the bot asks for before it generates. */
export interface ContextRequest extends ConversationLocation {
	/** The user's message; ranks the relevant tier. */
	query: string;
	/** Defaults to `MEMORY_CONTEXT_TOKEN_BUDGET`. */
	tokenBudget?: number;
	/**
	 * Channels the asking member can view. When given, memories of any other channel never surface.
	 * The Sapphire layer always passes it.
	 */
	visibleChannelIds?: Iterable<string>;
}

export type ContextTier = 'profile' | 'summary' | 'relevant' | 'recent' | 'nudge';

export interface ContextBlock {
	tier: ContextTier;
	text: string;
	/** BPE tokens of `text` (never below the true count). */
	tokens: number;
	/** Message ids the block was built from. */
	sourceIds: string[];
}

export interface MemoryContext {
	/** The blocks joined, ready to inject. */
	text: string;
	tokens: number;
	blocks: ContextBlock[];
}

export interface UserSettings {
	privacyLevel: PrivacyLevel;
	crossServerOptIn: boolean;
	/**
	 * Set by `clearShortTerm` (milliseconds since the epoch): capture never stores again a message of
	 * this user written at or before it, so a bot's re-fetched history does not undo the clear.
	 */
	clearedBefore?: number;
	/** Set by `clearAll`: the same barrier, for the erasure of everything. */
	erasedBefore?: number;
	/**
	 * Set when the member last left FULL: what they wrote until then, while invisible, is never stored,
	 * even when a later turn's history carries it.
	 */
	fullUntil?: number;
}

export interface ServerSettings {
	privateChannelIds: string[];
	/**
	 * Category mode: up to 5 names; the summary tool then asks for one text per category, and the
	 * category map replaces the previous one. Empty: one free-form summary.
	 */
	summaryCategories: string[];
}

/** A message as the store keeps it. */
export interface StoredMessage {
	/** The Discord message id, or `h:<hash>` where the host gave none. */
	id: string;
	role: 'user' | 'persona';
	authorId?: string;
	authorName?: string;
	text: string;
	/** Milliseconds since the epoch. */
	ts: number;
	personaId?: string;
}

/**
 * One line of a scope's digest (`foldIntoDigest`): a hard event kept as it was said, or a count of
 * the small talk and acknowledgements around it.
 */
export interface DigestLine {
	/** `Maya: we meet on June 3 at Luigi's` or `(4 short replies: ok ×2, lol, 👍)`: one line, without its time. */
	text: string;
	/** The messages the line stands for, oldest first; every message folded is cited by exactly one line. */
	sourceIds: string[];
	/** When its first message was written (milliseconds since the epoch). */
	ts: number;
	kind: 'event' | 'collapsed';
	/** Who wrote those messages (member or persona ids), so a FULL or erased member's lines can be left out. */
	authorIds?: string[];
}

/** One short-term memory entry: the recent messages of one scope. */
export interface ShortTermEntry {
	scope: 'user' | 'server';
	userId: string | null;
	/** `"DM"` in DMs. */
	serverId: string;
	channelId: string;
	parentChannelId: string | null;
	personaId: string | null;
	lineageId: string | null;
	messages: StoredMessage[];
	summary: string | null;
	categories: Record<string, string> | null;
	lastUpdated: number;
	/** Turns since the summary was last refreshed. */
	turnsSinceRefresh: number;
	/** Messages that left the crude window, folded without an LLM; absent on entries stored before digests. */
	digest?: DigestLine[] | null;
	/** What the optional background summarizer wrote from the digest's sources (live scopes only). */
	backgroundSummary?: BackgroundSummary;
}

/**
 * A summary an LLM wrote in the background from the messages the digest cites. Every line of it cited
 * its sources and together they covered all of them, or it would not have been stored.
 */
export interface BackgroundSummary {
	/** One fact per line, citations removed. */
	text: string;
	/** The message ids it was built from, all cited. */
	sourceIds: string[];
	/** The authors of the archived sources, so erasure finds the summaries built from a member's words. */
	authorIds: string[];
	/** The newest digest line it covers (milliseconds since the epoch): later lines are served after it. */
	coveredThrough: number;
	model: string;
	inputTokens: number;
	outputTokens: number;
	/** From `MEMORY_LLM_PRICE_INPUT_PER_MTOK` and `MEMORY_LLM_PRICE_OUTPUT_PER_MTOK`. */
	costUsd: number;
	/** Milliseconds since the epoch. */
	createdAt: number;
	/** A cited message was edited or deleted since: not served until rebuilt. */
	stale: boolean;
}

/** Messages edited or deleted on Discord (`memory.messagesChanged`): background summaries citing them go stale. */
export interface MessagesChange {
	/** `null` in a DM. */
	serverId: string | null;
	channelId: string;
	/** In a DM, the member the DM is with (whose scope it is); unused in a guild. */
	userId?: string;
	messageIds: string[];
	kind: 'edited' | 'deleted';
}

/** Where the store lives, as `/session status` reports it; `custom` for a Keyv the host passed. */
export type StorageKind = 'sqlite' | 'redis' | 'postgres' | 'custom';

/** Where a status is asked from: the channel whose live memory it describes. */
export interface StatusLocation {
	/** `null` in a DM. */
	serverId: string | null;
	channelId: string;
	/** One persona's memory of the channel; left out, every persona's. */
	personaId?: string | null;
}

/** What memory holds about one user (`/session status`). */
export interface MemoryStatus {
	privacyLevel: PrivacyLevel;
	crossServerOptIn: boolean;
	storage: StorageKind;
	/** The user's live short-term entries (user scope), in servers and DMs. */
	shortTermEntries: number;
	/** Messages the user wrote that archives hold. */
	archivedMessages: number;
	hasProfile: boolean;
	topics: number;
	/** The live entry of the asked channel (server scope in a guild, user scope in a DM); absent when there is none. */
	current?: { messages: number; hasSummary: boolean; expiresInMs: number };
	ttl: { shortTermHours: number; summaryHours: number; archiveDays: number };
}

/** What `clearShortTerm` removed. */
export interface ClearShortTermResult {
	/** The user's own short-term entries deleted. */
	entriesDeleted: number;
	/** The user's messages removed from shared (server-scope) channel memories. */
	messagesRemoved: number;
}

/** What `clearAll` removed. */
export interface ClearAllResult extends ClearShortTermResult {
	/** Archived messages removed (the user's own, and whole conversations of their DMs). */
	archivedMessagesRemoved: number;
	/** Summaries dropped because they may have been built from the user's messages. */
	summariesDropped: number;
	profileDeleted: boolean;
	topicsDeleted: number;
}

/** A user's long-term profile. */
export interface UserProfile {
	/** `name: value` facts the user wants kept, e.g. `{ pronouns: 'she/her' }`. */
	preferences: Record<string, string>;
	notes: string[];
	tags: string[];
	/** Milliseconds since the epoch. */
	updatedAt: number;
}

/** A change to a profile: preferences merge by name (`null` removes one); notes and tags are added once. */
export interface ProfilePatch {
	preferences?: Record<string, string | null>;
	notes?: string[];
	tags?: string[];
}

/** One topic note of a user. */
export interface TopicNote {
	/** The title lower-cased to a–z, 0–9 and "-", at most 64 characters: the topic's key. */
	slug: string;
	title: string;
	note: string;
	/** Milliseconds since the epoch. */
	updatedAt: number;
}

/** A topic as listed (`/session forget` autocomplete). */
export type TopicListing = Pick<TopicNote, 'slug' | 'title' | 'updatedAt'>;

/** One message in an export. */
export interface ExportedMessage {
	id: string;
	role: 'user' | 'persona';
	/** `"DM"` in DMs. */
	serverId: string;
	channelId: string;
	personaId: string | null;
	authorName?: string;
	text: string;
	/** ISO 8601. */
	at: string;
}

/** One of the user's own short-term entries in an export. */
export interface ExportedEntry {
	serverId: string;
	channelId: string;
	parentChannelId: string | null;
	personaId: string | null;
	summary: string | null;
	categories: Record<string, string> | null;
	lastUpdated: string;
	expiresAt: string;
	messages: ExportedMessage[];
}

/** Everything stored about one user, and nothing about anyone else (`/session export`). */
export interface UserExport {
	schemaVersion: number;
	/** ISO 8601. */
	exportedAt: string;
	userId: string;
	settings: { privacyLevel: PrivacyLevel; crossServerOptIn: boolean; clearedBefore?: string; erasedBefore?: string };
	/** The user's own conversation memories: their messages and the personas' replies. */
	shortTerm: ExportedEntry[];
	/** The user's messages held in shared channel memories (server scope). */
	sharedShortTerm: ExportedMessage[];
	/** Archived messages the user wrote, and the personas' replies in their DMs. */
	archive: ExportedMessage[];
	profile: UserProfile | null;
	topics: TopicNote[];
}
