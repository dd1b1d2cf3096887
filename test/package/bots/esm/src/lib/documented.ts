// What a bot developer writes with the package root's documented surface (README.md's three integration points,
// docs/context.md's engine calls, docs/session.md's and docs/observability.md's): type-checked against the installed
// tarball, it imports nothing else and names every request and result by its exported type. Never run.
import { container, SapphireClient } from '@sapphire/framework';
import { Events, GatewayIntentBits, type Message } from 'discord.js';
import {
	type ChannelInspection,
	type ClearAllResult,
	type ClearShortTermResult,
	contextForMessage,
	type ContextRequest,
	EMPTY_CONTEXT,
	handleRememberTool,
	handleShortTermMemoryTool,
	LATENCY_BUCKETS_MS,
	type MemberErasure,
	type MemoryConfig,
	type MemoryContext,
	type MemoryCounters,
	MemoryEngine,
	type MemoryEngineOptions,
	MemoryError,
	type MemoryErrorCode,
	type MemoryErrorContext,
	MemoryEvents,
	type MemoryPluginOptions,
	type MemoryStatus,
	type MemoryStoreRecovery,
	type MemoryTurn,
	type MessagesChangeResult,
	METRIC_NAMES,
	type PersonaIdentity,
	PrivacyLevel,
	type RecordTurnResult,
	registerMemoryMetrics,
	REMEMBER_TOOL_NAME,
	rememberTool,
	type ResealResult,
	type ServerPurge,
	type ServerSettings,
	SESSION_STRINGS,
	type SessionStringOverrides,
	SHORT_TERM_MEMORY_TOOL_NAME,
	shortTermMemoryTool,
	shortTermMemoryToolFor,
	type StoreInventory,
	type SweepResult,
	type TopicListing,
	type TopicNote,
	turnFromMessages,
	type UserExport,
	type UserProfile,
	type UserSettings,
	visibleChannelIds,
	type WrittenSummary
} from 'sapphire-plugin-memory';

const sol: PersonaIdentity = { id: 'sol', name: 'Sol' };

/** The README's bot: a context before generating, the persona's tools, one event after the turn. */
export function documentedBot(chat: (system: string, tools: unknown[]) => Promise<{ text: string; calls: { name: string; args: string }[] }>) {
	const sessionStrings: SessionStringOverrides = { fr: { 'status.heading': `**Ta mémoire** (${SESSION_STRINGS['status.heading']})` } };
	const memory: MemoryPluginOptions = { config: { contextTokenBudget: 1500 }, sessionStrings, metrics: false };
	const client = new SapphireClient({ intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages], memory });

	client.on(Events.MessageCreate, async (message: Message) => {
		const context: MemoryContext = await contextForMessage(message, sol, { tokenBudget: 1200 });
		const visible: string[] | undefined = visibleChannelIds(message);
		const history = await message.channel.messages.fetch({ limit: 10, before: message.id });
		const tools = [await shortTermMemoryToolFor(message.guildId), rememberTool, shortTermMemoryTool];
		const completion = await chat(`You are Sol.\n\n${(context === EMPTY_CONTEXT ? '' : context.text) + (visible?.length ?? 0)}`, tools);
		for (const call of completion.calls) {
			if (call.name === SHORT_TERM_MEMORY_TOOL_NAME) await handleShortTermMemoryTool(call.args, message, sol);
			if (call.name === REMEMBER_TOOL_NAME) await handleRememberTool(call.args, message);
		}
		const sent = await message.reply(completion.text);
		client.emit(MemoryEvents.TurnCompleted, turnFromMessages({ trigger: message, history, responses: [sent], persona: sol }));
	});
	client.on(MemoryEvents.TurnRecorded, (turn: MemoryTurn, result: RecordTurnResult) => {
		if (!result.written) container.logger.debug(`turn of ${turn.userId} skipped: ${result.skippedReason}`);
	});
	client.on(MemoryEvents.Error, (error: unknown, context: MemoryErrorContext) => {
		const code: MemoryErrorCode | undefined = error instanceof MemoryError ? error.code : undefined;
		container.logger.warn(`[memory] ${context.phase} failed (${code})`);
	});
	client.on(MemoryEvents.StoreRecovered, ({ downMs, failedCalls }: MemoryStoreRecovery) => {
		container.logger.info(`[memory] store back after ${downMs} ms, ${failedCalls} calls failed`);
	});
	return client;
}

/** docs/context.md's engine, without Discord: every public call, each request and result named by its type. */
export async function documentedEngine(userId: string, serverId: string, channelId: string): Promise<void> {
	const options: MemoryEngineOptions = { storeUrl: 'sqlite://./data/memory.sqlite', config: { contextTokenBudget: 1500 }, logger: console };
	const memory = await MemoryEngine.open(options);
	const config: MemoryConfig = memory.config;
	const turn: MemoryTurn = {
		userId,
		serverId,
		channelId,
		history: [{ role: 'user', authorId: userId, authorName: 'Maya', text: 'we adopted a beagle called Biscuit!', messageId: '1234' }],
		responses: [{ text: 'Biscuit! What a name.', personaId: 'sol', personaName: 'Sol', messageId: '1235' }]
	};
	const recorded: RecordTurnResult = await memory.recordTurn(turn);
	const request: ContextRequest = { userId, serverId, channelId, personaId: 'sol', personaName: 'Sol', query: 'my dog?' };
	const context: MemoryContext = await memory.buildContext(request);
	const user: UserSettings = await memory.setUserSettings(userId, { privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: true });
	const server: ServerSettings = await memory.setServerSettings(serverId, { privateChannelIds: [channelId] });
	await memory.getUserSettings(userId);
	await memory.getServerSettings(serverId);
	const summary: WrittenSummary = await memory.updateShortTermMemory({ userId, serverId, channelId, personaId: 'sol' }, { summary: 'Biscuit.' });
	const remembered = await memory.remember(userId, { kind: 'note', text: 'Has a beagle.' });
	const profile: UserProfile = await memory.updateProfile(userId, { preferences: { pronouns: 'she/her' } });
	const saved: TopicNote = await memory.saveTopic(userId, { title: 'Biscuit', note: 'A beagle.' });
	const topics: TopicListing[] = await memory.listTopics(userId);
	const topic: TopicNote | null = await memory.getTopic(userId, saved.slug);
	const forgot: boolean = await memory.forgetTopic(userId, saved.slug);
	const current: UserProfile | null = await memory.getProfile(userId);
	const status: MemoryStatus = await memory.status(userId, { serverId, channelId, personaId: 'sol' });
	const exported: UserExport = await memory.exportUser(userId);
	const changed: MessagesChangeResult = await memory.messagesChanged({ serverId, channelId, messageIds: ['1234'], kind: 'deleted' });
	const cleared: ClearShortTermResult = await memory.clearShortTerm(userId);
	const erased: ClearAllResult = await memory.clearAll(userId);
	const wiped: { entriesDeleted: number; messagesDeleted: number } = await memory.wipeChannel(serverId, channelId);
	const left: MemberErasure | null = await memory.memberLeft(serverId, userId);
	const removed: { purged: ServerPurge | null; purgeAt: number } = await memory.serverRemoved(serverId);
	const rejoined: boolean = await memory.serverRejoined(serverId);
	const purged: ServerPurge = await memory.purgeServer(serverId);
	await memory.summarizerIdle();
	await memory.indexingIdle();
	const counters: MemoryCounters = memory.stats();
	const inventory: StoreInventory = await memory.inventory();
	const inspection: ChannelInspection = await memory.inspectChannel({ channelId });
	const resealed: ResealResult = await memory.reseal();
	const swept: SweepResult = await memory.sweep();
	const unregister = await registerMemoryMetrics(memory);
	unregister?.();
	console.log(config.contextTokenBudget, recorded.written, context.tokens, user.privacyLevel, server.privateChannelIds, summary.keys);
	console.log(remembered.saved, profile.preferences, topics.length, topic?.title, forgot, current?.notes, status.storage);
	console.log(exported.schemaVersion, changed.entriesChanged, cleared.entriesDeleted, erased.profileDeleted, wiped.messagesDeleted);
	console.log(left, removed.purgeAt, rejoined, purged, counters.latency, LATENCY_BUCKETS_MS, METRIC_NAMES, inventory.totalKeys);
	console.log(inspection.scopes.length, resealed.resealed, swept);
	await memory.close();
}
