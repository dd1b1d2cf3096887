export * from './engine/errors';
export * from './engine/schemas/types';
export * from './engine/config';
export { MemoryEngine, type MemoryEngineOptions, type MemoryLogger, type MemoryCounters } from './engine/MemoryEngine';
export type { SummarizerCounters } from './engine/summaries/BackgroundSummarizer';
export type { SummaryRejection } from './engine/summaries/citations';
export type { ChatFailureKind } from './engine/summaries/chatCompletions';
export type { SweepResult } from './engine/maintenance/sweep';
export type { SweepCounters } from './engine/maintenance/SweepSchedule';
export { LATENCY_BUCKETS_MS, type LatencyHistogram } from './engine/stats/LatencyRecorder';
export { registerMemoryMetrics, METRIC_NAMES, type MemoryMetricsOptions, type MetricsRegistry } from './ops/prometheus';
export { KEY_KINDS, keyKind, type KeyKind, type StoreInventory } from './engine/maintenance/inventory';
export type { ChannelInspection, ChannelQuery, ScopeInspection } from './engine/maintenance/inspect';
export { MemoryTurnSchema, ContextRequestSchema, ConversationLocationSchema, MAX_MESSAGE_CHARS } from './engine/schemas/validation';
export { BudgetPolicy } from './engine/context/budget';
export { Keys } from './engine/store/keys';
export { tokenCount } from './engine/format/tokens';
export { foldIntoDigest } from './engine/summaries/digest';
export type { SummaryTarget } from './engine/summaries/SummaryWriter';
export { ShortTermMemoryToolSchema, shortTermMemoryToolSchema, cleanSummary } from './engine/summaries/SummaryWriter';
export { MemoryEvents, type MemoryErrorContext, type MemoryErrorPhase, type MemoryStoreRecovery } from './plugin/events';
export type { StoreHealthChange, StoreHealthCounters } from './engine/store/StoreHealth';
export type { MemoryPluginOptions } from './plugin/options';
export { turnFromMessages, type TurnFromMessagesInput, type PersonaIdentity } from './plugin/turn';
export { contextForMessage, visibleChannelIds, EMPTY_CONTEXT, type ContextForMessageOptions } from './plugin/context';
export {
	shortTermMemoryTool,
	shortTermMemoryToolFor,
	handleShortTermMemoryTool,
	SHORT_TERM_MEMORY_TOOL_NAME,
	rememberTool,
	handleRememberTool,
	REMEMBER_TOOL_NAME
} from './plugin/tool';
export { RememberToolSchema, type RememberArguments } from './engine/account/remember';

import type { MemoryEngine } from './engine/MemoryEngine';
import type { MemoryErrorContext, MemoryEvents, MemoryStoreRecovery } from './plugin/events';
import type { MemoryPluginOptions } from './plugin/options';
import type { MemoryTurn, RecordTurnResult } from './engine/schemas/types';

declare module 'discord.js' {
	interface ClientOptions {
		/** sapphire-plugin-memory's options; they override the environment. */
		memory?: MemoryPluginOptions;
	}

	interface ClientEvents {
		[MemoryEvents.TurnCompleted]: [turn: MemoryTurn];
		[MemoryEvents.TurnRecorded]: [turn: MemoryTurn, result: RecordTurnResult];
		[MemoryEvents.Error]: [error: unknown, context: MemoryErrorContext];
		[MemoryEvents.StoreRecovered]: [recovery: MemoryStoreRecovery];
	}
}

declare module '@sapphire/pieces' {
	interface Container {
		/** The memory engine, opened before login. */
		memory: MemoryEngine;
	}
}
