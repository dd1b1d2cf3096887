import type { RememberArguments } from './account/remember';
import type { TopicInput } from './account/Accounts';
import type { MemoryConfig } from './config';
import { EngineParts } from './EngineParts';
import { MemoryError } from './errors';
import type { MemberErasure } from './ledger/forgetMember';
import type { ServerPurge } from './ledger/forgetServer';
import type { ChannelInspection, ChannelQuery } from './maintenance/inspect';
import type { SweepResult } from './maintenance/SweepResult';
import { checkEngineOptions, type MemoryEngineOptions } from './MemoryEngineOptions';
import type { StoreInventory } from './records/inventory';
import type { ResealResult } from './records/RecordStore';
import type { ClearAllResult, ClearShortTermResult, ContextRequest, MemoryContext, MemoryStatus, MemoryTurn } from './schemas';
import type { ContextSources, ContextSourcesViewer } from './schemas';
import type { ForgetMessageRequest, ForgetMessageResult, RememberMessageRequest, RememberMessageResult } from './schemas';
import type { MessagesChange, MessagesChangeResult, ProfilePatch, RecordTurnResult, ServerSettings, ServerSettingsPatch } from './schemas';
import type { StatusLocation, SummaryTarget, TopicListing, TopicNote, UserExport, UserProfile, UserSettings, UserSettingsPatch } from './schemas';
import type { MemoryCounters } from './stats/EngineStats';
import type { WrittenSummary } from './summaries/SummaryWriter';

/**
 * Conversation memory for persona bots: capture each turn, hand back a token-budgeted context. The front door: each call
 * delegates to the part that owns it (docs/engine.md).
 * @example
 * const memory = await MemoryEngine.open({ storeUrl: 'sqlite://./data/memory.sqlite' });
 * const { text } = await memory.buildContext({ userId, serverId, channelId, personaId, query: message.content });
 */
export class MemoryEngine {
	/** The settings the engine runs with: the environment's, with the host's `config` over them, checked and frozen. */
	public readonly config: MemoryConfig;
	private closed = false;

	private constructor(private readonly parts: EngineParts) {
		this.config = parts.config;
	}

	/** Captures one finished turn; see docs/design.md's Capture section for what is kept. */
	public async recordTurn(turn: MemoryTurn): Promise<RecordTurnResult> {
		return this.open().turns.record(turn);
	}

	/** The context to inject before the next generation, within the token budget. */
	public async buildContext(request: ContextRequest): Promise<MemoryContext> {
		return this.open().contexts.build(request);
	}

	/** Changes a user's settings; leaving MINIMAL drops their profile and topics, choosing FULL erases them as {@link MemoryEngine.clearAll}. */
	public async setUserSettings(userId: string, patch: UserSettingsPatch): Promise<UserSettings> {
		return this.open().erasures.setUserSettings(userId, patch);
	}

	/** A user's settings; a user never set reads as MINIMAL, without the cross-server opt-in. */
	public async getUserSettings(userId: string): Promise<UserSettings> {
		return this.open().accounts.userSettings(userId);
	}

	/** Changes a server's settings: its private channels (which never surface outside themselves) and summary categories. */
	public async setServerSettings(serverId: string, patch: ServerSettingsPatch): Promise<ServerSettings> {
		return this.open().settings.setServer(serverId, patch);
	}

	/** A server's settings; a server never set has no private channel and no summary category. */
	public async getServerSettings(serverId: string): Promise<ServerSettings> {
		return this.open().accounts.serverSettings(serverId);
	}

	/** Stores the summary the persona's LLM wrote with `update_short_term_memory`; `INVALID_INPUT` in words the LLM can read. */
	public async updateShortTermMemory(target: SummaryTarget, input: unknown): Promise<WrittenSummary> {
		return this.open().summaries.write(target, input, this.parts.now());
	}

	/** Saves what the persona's LLM asked to `remember` about a user (`PRIVACY_REFUSED` unless MINIMAL). */
	public async remember(userId: string, input: unknown): Promise<{ kind: RememberArguments['kind']; saved: string }> {
		return this.open().accounts.remember(userId, input);
	}

	/** A moderator's wipe of everything remembered in one guild channel. */
	public async wipeChannel(serverId: string, channelId: string): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
		return this.open().erasures.wipeChannel(serverId, channelId);
	}

	/** The bot left a server (`guildDelete`): all of it is erased now or after `MEMORY_SERVER_PURGE_GRACE_HOURS` (`purgeAt`). */
	public async serverRemoved(serverId: string): Promise<{ purged: ServerPurge | null; purgeAt: number }> {
		return this.open().purges.removed(serverId, this.parts.now());
	}

	/** The bot is in a server again (`guildCreate`): a purge still pending for it is cancelled; true when there was one. */
	public async serverRejoined(serverId: string): Promise<boolean> {
		return this.open().purges.rejoined(serverId);
	}

	/** A member left a server (`MEMORY_FORGET_MEMBERS_WHO_LEAVE`): what memory holds of them there goes, for good; null when nothing. */
	public async memberLeft(serverId: string, userId: string): Promise<MemberErasure | null> {
		return this.open().erasures.memberLeft(serverId, userId);
	}

	/** Erases everything of one server now: every channel's memory and archive, its members' conversations there, its settings. */
	public async purgeServer(serverId: string): Promise<ServerPurge> {
		return this.open().purges.purge(serverId);
	}

	/** `/session status`: what memory holds about the user; with `where`, `current` describes that channel's live memory. */
	public async status(userId: string, where?: StatusLocation): Promise<MemoryStatus> {
		return this.open().accounts.status(userId, where);
	}

	/** `/session clear`: the user's short-term memory, and their messages in shared channel memories. */
	public async clearShortTerm(userId: string): Promise<ClearShortTermResult> {
		return this.open().erasures.clearShortTerm(userId);
	}

	/** `/session clear all`: erases every copy of the user's words the ledger knows, and their long-term memory. */
	public async clearAll(userId: string): Promise<ClearAllResult> {
		return this.open().erasures.clearAll(userId);
	}

	/** Messages edited or deleted on Discord: a deleted one leaves every copy and is never captured again; an edited one keeps its new text. */
	public async messagesChanged(change: MessagesChange): Promise<MessagesChangeResult> {
		return this.open().erasures.messagesChanged(change);
	}

	/**
	 * Forget this message: a member's own message, a persona's reply to them, or (as a moderator) anyone's leaves every copy
	 * and is never captured again, as if deleted on Discord, while it stays there. Refused, with why, for anyone else's.
	 */
	public async forgetMessage(request: ForgetMessageRequest): Promise<ForgetMessageResult> {
		return this.open().erasures.forgetMessage(request);
	}

	/**
	 * Remember this: one message's text (the member's own, or a persona's reply to them) kept as a note of their profile, as
	 * the remember tool keeps notes (MINIMAL members only); the result says why not otherwise.
	 */
	public async rememberMessage(request: RememberMessageRequest): Promise<RememberMessageResult> {
		return this.open().accounts.rememberMessage(request);
	}

	/**
	 * What did you remember?: the stored messages the context of one persona reply drew on, per tier, as the member asking
	 * may see them now (channels they cannot view, and other members' words from elsewhere, counted, not shown), each marked
	 * `own` when they may forget it. Kept for the short-term TTL, erased with the member.
	 */
	public async contextSources(replyMessageId: string, viewer: ContextSourcesViewer): Promise<ContextSources> {
		return this.open().accounts.contextSources(replyMessageId, viewer);
	}

	/** Resolves once the background summarizer has nothing running or queued to run now (scripts, tests). */
	public async summarizerIdle(): Promise<void> {
		await this.parts.summarizer?.whenIdle();
	}

	/** Resolves once the archives' older messages, indexed in the background after a restart, are indexed (scripts, tests). */
	public async indexingIdle(): Promise<void> {
		await this.parts.archive.indexingIdle();
	}

	/** `/session export`: everything stored about the user, and nothing about anyone else, as plain JSON-able data. */
	public async exportUser(userId: string): Promise<UserExport> {
		return this.open().accounts.export(userId);
	}

	/** The user's long-term profile; null when none (always for PARTIAL and FULL users). */
	public async getProfile(userId: string): Promise<UserProfile | null> {
		return this.open().accounts.profile(userId);
	}

	/** Merges a change into the user's profile, e.g. `{ preferences: { pronouns: 'she/her' } }` (`PRIVACY_REFUSED` unless MINIMAL). */
	public async updateProfile(userId: string, patch: ProfilePatch): Promise<UserProfile> {
		return this.open().erasures.updateProfile(userId, patch);
	}

	/** Saves (or replaces) a topic note under its title's slug, e.g. "trip-to-porto" (MINIMAL only); takes `title, note` or `{ title, note }`. */
	public async saveTopic(userId: string, ...topic: TopicInput): Promise<TopicNote> {
		return this.open().accounts.saveTopic(userId, ...topic);
	}

	/** The user's topics, newest first. */
	public async listTopics(userId: string): Promise<TopicListing[]> {
		return this.open().accounts.topics(userId);
	}

	/** One topic by slug or title; null when none. */
	public async getTopic(userId: string, slug: string): Promise<TopicNote | null> {
		return this.open().accounts.topic(userId, slug);
	}

	/** Deletes one topic by slug or title; false when there was none. */
	public async forgetTopic(userId: string, slug: string): Promise<boolean> {
		return this.open().erasures.forgetTopic(userId, slug);
	}

	/** A snapshot of the counters, plain JSON-able data. */
	public stats(): MemoryCounters {
		return this.parts.stats.snapshot(this.parts.store);
	}

	/** For operators (`sapphire-memory stats`): the keys counted by kind, the store's size, the archive's span. It reads the whole namespace. */
	public async inventory(): Promise<StoreInventory> {
		return this.open().operators.inventory();
	}

	/** For operators (`sapphire-memory inspect --channel`): the live memory of one channel, every persona's. It scans the namespace's keys. */
	public async inspectChannel(query: ChannelQuery): Promise<ChannelInspection> {
		return this.open().operators.inspect(query);
	}

	/** For operators (`sapphire-memory reseal`): values sealed with a previous key are sealed with `MEMORY_ENCRYPTION_KEY` (docs/storage.md). */
	public async reseal(): Promise<ResealResult> {
		return this.open().erasures.reseal();
	}

	/** Deletes what has expired (see docs/storage.md); runs by itself every `MEMORY_SWEEP_INTERVAL_MINUTES`, and a call during a sweep joins it. */
	public async sweep(): Promise<SweepResult> {
		return this.open().sweeps.sweep();
	}

	/** Stops the sweep timer and waits for a sweep and writes in flight, then closes the store (unless the host passed its own Keyv). */
	public async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		await this.parts.close();
	}

	/** The engine's parts, once it is known to be open. */
	private open(): EngineParts {
		if (this.closed) throw new MemoryError('CLOSED', 'The memory engine is closed.');
		return this.parts;
	}

	/** Validates the configuration and opens the store: `INVALID_CONFIG` for a bad setting, `STORE_UNAVAILABLE` for an unreachable store. */
	public static async open(options: MemoryEngineOptions = {}): Promise<MemoryEngine> {
		const parts = await EngineParts.open(checkEngineOptions(options));
		parts.sweeps.start();
		return new MemoryEngine(parts);
	}
}
