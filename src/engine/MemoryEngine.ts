import { exportUser } from './account/exportUser';
import { getProfile } from './account/profile';
import { remember, type RememberArguments } from './account/remember';
import { status } from './account/status';
import { getTopic, listTopics, saveTopic } from './account/topics';
import { recordTurn } from './capture/recordTurn';
import type { MemoryConfig } from './config';
import { buildContext } from './context/buildContext';
import { EngineParts } from './EngineParts';
import { MemoryError } from './errors';
import { type ChannelInspection, type ChannelQuery, ChannelQuerySchema, inspectChannel } from './maintenance/inspect';
import { type StoreInventory, takeInventory } from './records/inventory';
import type { SweepResult } from './maintenance/SweepResult';
import { checkEngineOptions, type MemoryEngineOptions } from './MemoryEngineOptions';
import {
	assertId,
	type ClearAllResult,
	type ClearShortTermResult,
	type ContextRequest,
	ContextRequestSchema,
	type MemoryContext,
	type MemoryStatus,
	type MemoryTurn,
	MemoryTurnSchema,
	type MessagesChange,
	type MessagesChangeResult,
	parseInput,
	type ProfilePatch,
	type RecordTurnResult,
	type ServerSettings,
	type ServerSettingsPatch,
	type ShortTermEntry,
	type StatusLocation,
	StatusLocationSchema,
	type SummaryTarget,
	type TopicListing,
	type TopicNote,
	type UserExport,
	type UserProfile,
	type UserSettings,
	type UserSettingsPatch
} from './schemas';
import { readInput } from './schemas/readInput';
import type { MemoryCounters } from './stats/EngineStats';

import type { WrittenSummary } from './summaries/SummaryWriter';
import type { ServerPurge } from './ledger/forgetServer';
import type { MemberErasure } from './ledger/forgetMember';
import type { ResealResult } from './records/RecordStore';

/**
 * Conversation memory for persona bots: capture each turn, hand back a token-budgeted context. The front
 * door: it validates, delegates and counts; every rule lives in the part it names (docs/engine.md).
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
		const { stats, captures, summarizer, capture, now, replyCalls } = this.open();
		return replyCalls.run(() =>
			stats.capture(async () => {
				const parsed = parseInput(MemoryTurnSchema, turn, 'turn');
				const written: [string, ShortTermEntry][] = [];
				const onLiveWrite = summarizer ? (key: string, entry: ShortTermEntry) => void written.push([key, entry]) : undefined;
				try {
					return await captures.track(recordTurn({ ...capture, onLiveWrite }, parsed, now()));
				} finally {
					// Only queued once the turn is stored: the summarizer's worker starts after this call has returned.
					for (const [key, entry] of written) summarizer?.offer(key, entry);
				}
			})
		);
	}

	/** The context to inject before the next generation, within the token budget. */
	public async buildContext(request: ContextRequest): Promise<MemoryContext> {
		const { stats, context, now, replyCalls } = this.open();
		return replyCalls.run(() =>
			stats.context(async () => buildContext(context, parseInput(ContextRequestSchema, request, 'context request'), now()))
		);
	}

	/**
	 * Changes a user's settings. A user who leaves MINIMAL loses their profile and topics, which they may no
	 * longer keep; a user who chooses FULL is erased as by {@link MemoryEngine.clearAll}: nothing of theirs is kept from then on.
	 */
	public async setUserSettings(userId: string, patch: UserSettingsPatch): Promise<UserSettings> {
		return this.open().erasures.setUserSettings(userId, patch);
	}

	/** A user's settings; a user never set reads as MINIMAL, without the cross-server opt-in. */
	public async getUserSettings(userId: string): Promise<UserSettings> {
		return { ...(await this.open().settings.user(this.id('userId', userId))) };
	}

	/** Changes a server's settings: its private channels (which never surface outside themselves) and summary categories. */
	public async setServerSettings(serverId: string, patch: ServerSettingsPatch): Promise<ServerSettings> {
		return this.open().settings.setServer(serverId, patch);
	}

	/** A server's settings; a server never set has no private channel and no summary category. */
	public async getServerSettings(serverId: string): Promise<ServerSettings> {
		return { ...(await this.open().settings.server(this.id('serverId', serverId))) };
	}

	/**
	 * Stores the summary the persona's LLM wrote with `update_short_term_memory` (its arguments, or the summary string);
	 * rejects with `INVALID_INPUT`, in words the LLM can read.
	 */
	public async updateShortTermMemory(target: SummaryTarget, input: unknown): Promise<WrittenSummary> {
		const { summaries, now } = this.open();
		return summaries.write(target, input, now());
	}

	/** Saves what the persona's LLM asked to `remember` about a user (`PRIVACY_REFUSED` unless MINIMAL). */
	public async remember(userId: string, input: unknown): Promise<{ kind: RememberArguments['kind']; saved: string }> {
		const { account, now } = this.open();
		return remember(account, this.id('userId', userId), input, now());
	}

	/** A moderator's wipe of everything remembered in one guild channel. */
	public async wipeChannel(serverId: string, channelId: string): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
		return this.open().erasures.wipeChannel(serverId, channelId);
	}

	/**
	 * The bot was removed from a server (the plugin calls this on `guildDelete`): everything memory holds of it
	 * is erased, at once or after `MEMORY_SERVER_PURGE_GRACE_HOURS`; `purgeAt` says when.
	 */
	public async serverRemoved(serverId: string): Promise<{ purged: ServerPurge | null; purgeAt: number }> {
		const { purges, now } = this.open();
		return purges.removed(this.id('serverId', serverId), now());
	}

	/** The bot is in a server again (`guildCreate`): a purge still pending for it is cancelled; true when there was one. */
	public async serverRejoined(serverId: string): Promise<boolean> {
		return this.open().purges.rejoined(this.id('serverId', serverId));
	}

	/**
	 * A member left a server (the plugin calls this on `guildMemberRemove` when `MEMORY_FORGET_MEMBERS_WHO_LEAVE` is on):
	 * what memory holds of them there is erased, and what they wrote there before is never stored again; their DMs,
	 * other servers, profile and topics stay. Null when memory held nothing of them.
	 */
	public async memberLeft(serverId: string, userId: string): Promise<MemberErasure | null> {
		return this.open().erasures.memberLeft(serverId, userId);
	}

	/** Erases everything of one server now: every channel's memory and archive, its members' conversations there, its settings. */
	public async purgeServer(serverId: string): Promise<ServerPurge> {
		return this.open().purges.purge(this.id('serverId', serverId));
	}

	/** `/session status`: what memory holds about the user; with `where`, `current` describes that channel's live memory. */
	public async status(userId: string, where?: StatusLocation): Promise<MemoryStatus> {
		const { account, now } = this.open();
		this.id('userId', userId);
		const location = where === undefined ? undefined : parseInput(StatusLocationSchema, where, 'status location');
		return status(account, userId, location, now());
	}

	/** `/session clear`: the user's short-term memory, and their messages in shared channel memories. */
	public async clearShortTerm(userId: string): Promise<ClearShortTermResult> {
		return this.open().erasures.clearShortTerm(userId);
	}

	/** `/session clear all`: erases every copy of the user's words the ledger knows, and their long-term memory. */
	public async clearAll(userId: string): Promise<ClearAllResult> {
		return this.open().erasures.clearAll(userId);
	}

	/**
	 * Messages were edited or deleted on Discord (the plugin's listeners call this): a deleted message leaves
	 * every copy (short-term entries, archives and their search index, digest lines, the background summaries
	 * citing it) and is never captured again; an edited one keeps only its new text (`texts`) everywhere.
	 */
	public async messagesChanged(change: MessagesChange): Promise<MessagesChangeResult> {
		return this.open().erasures.messagesChanged(change);
	}

	/** Resolves once the background summarizer has nothing running or queued to run now (scripts, tests). */
	public async summarizerIdle(): Promise<void> {
		await this.parts.summarizer?.whenIdle();
	}

	/**
	 * Resolves once the archives' older messages, indexed in the background after a restart (contexts meanwhile search the
	 * newest ones), are indexed (scripts, tests, the bench).
	 */
	public async indexingIdle(): Promise<void> {
		await this.parts.archive.indexingIdle();
	}

	/** `/session export`: everything stored about the user, and nothing about anyone else, as plain JSON-able data. */
	public async exportUser(userId: string): Promise<UserExport> {
		const { account, now } = this.open();
		return exportUser(account, this.id('userId', userId), now());
	}

	/** The user's long-term profile; null when none (always for PARTIAL and FULL users). */
	public async getProfile(userId: string): Promise<UserProfile | null> {
		return getProfile(this.open().account, this.id('userId', userId));
	}

	/** Merges a change into the user's profile, e.g. `{ preferences: { pronouns: 'she/her' } }` (`PRIVACY_REFUSED` unless MINIMAL). */
	public async updateProfile(userId: string, patch: ProfilePatch): Promise<UserProfile> {
		return this.open().erasures.updateProfile(userId, patch);
	}

	/** Saves (or replaces) a topic note under its title's slug, e.g. "trip-to-porto" (MINIMAL users only); also takes `{ title, note }`. */
	public saveTopic(userId: string, title: string, note: string): Promise<TopicNote>;
	/** Saves (or replaces) a topic note given as `{ title, note }`. */
	public saveTopic(userId: string, topic: { title: string; note: string }): Promise<TopicNote>;
	public async saveTopic(userId: string, titleOrTopic: string | { title: string; note: string }, note?: string): Promise<TopicNote> {
		const { account, now } = this.open();
		this.id('userId', userId);
		const topic =
			typeof titleOrTopic === 'object' && titleOrTopic !== null
				? readInput('topic', titleOrTopic, () => ({ title: titleOrTopic.title, note: titleOrTopic.note }), ['title', 'note'])
				: { title: titleOrTopic, note };
		return saveTopic(account, userId, topic.title, topic.note, now());
	}

	/** The user's topics, newest first. */
	public async listTopics(userId: string): Promise<TopicListing[]> {
		return listTopics(this.open().account, this.id('userId', userId));
	}

	/** One topic by slug or title; null when none. */
	public async getTopic(userId: string, slug: string): Promise<TopicNote | null> {
		return getTopic(this.open().account, this.id('userId', userId), slug);
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
		const { store, config } = this.open();
		return takeInventory(store, config);
	}

	/** For operators (`sapphire-memory inspect --channel`): the live memory of one channel, every persona's. It scans the namespace's keys. */
	public async inspectChannel(query: ChannelQuery): Promise<ChannelInspection> {
		const { store, archive, config, now } = this.open();
		return inspectChannel({ store, archive, config }, parseInput(ChannelQuerySchema, query, 'channel query'), now());
	}

	/**
	 * For operators (`sapphire-memory reseal`): seals again with `MEMORY_ENCRYPTION_KEY` every value still sealed with one of
	 * `MEMORY_ENCRYPTION_PREVIOUS_KEYS`, so the previous keys can be dropped; a value not sealed is counted as damaged and
	 * left (a plain store is sealed whole when the engine opens with a key). It reads the whole namespace; a bot may run
	 * meanwhile. On SQLite the file is then rewritten, so no page keeps a value as it was.
	 */
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

	/** `value`, once it is known to be an id; else an `INVALID_INPUT` naming `name`. */
	private id(name: string, value: string): string {
		assertId(name, value);
		return value;
	}

	/** Validates the configuration and opens the store: `INVALID_CONFIG` for a bad setting, `STORE_UNAVAILABLE` for an unreachable store. */
	public static async open(options: MemoryEngineOptions = {}): Promise<MemoryEngine> {
		const parts = await EngineParts.open(checkEngineOptions(options));
		parts.sweeps.start();
		return new MemoryEngine(parts);
	}
}
