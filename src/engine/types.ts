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

/** What the bot asks for before it generates. */
export interface ContextRequest {
	userId: string;
	serverId: string | null;
	channelId: string;
	parentChannelId?: string | null;
	personaId?: string | null;
	personaLineageId?: string | null;
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
}

export interface ServerSettings {
	privateChannelIds: string[];
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
}
