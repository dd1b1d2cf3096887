export * from './engine/errors';
export * from './engine/types';
export * from './engine/config';
export { MemoryEngine, type MemoryEngineOptions, type MemoryLogger, type MemoryCounters } from './engine/MemoryEngine';
export type { SummarizerCounters } from './engine/summarizer';
export type { SummaryRejection } from './engine/citations';
export type { ChatFailureKind } from './engine/chatCompletions';
export type { SweepResult } from './engine/maintenance/sweep';
export type { SweepCounters } from './engine/maintenance/schedule';
export { LATENCY_BUCKETS_MS, type LatencyHistogram } from './engine/latency';
export { registerMemoryMetrics, METRIC_NAMES, type MemoryMetricsOptions, type MetricsRegistry } from './engine/prometheus';
export { KEY_KINDS, keyKind, type KeyKind, type StoreInventory } from './engine/inventory';
export type { ChannelInspection, ChannelQuery, ScopeInspection } from './engine/inspect';
export { MemoryTurnSchema, ContextRequestSchema, ConversationLocationSchema, MAX_MESSAGE_CHARS } from './engine/validation';
export { BudgetPolicy } from './engine/budget';
export { Keys } from './engine/keys';
export { tokenCount } from './engine/tokens';
export { foldIntoDigest } from './engine/digest';
export type { SummaryTarget } from './engine/summary';
export { ShortTermMemoryToolSchema, shortTermMemoryToolSchema, cleanSummary } from './engine/summary';
export { MemoryEvents, type MemoryErrorContext, type MemoryErrorPhase, type MemoryStoreRecovery } from './discord/events';
export type { StoreHealthChange, StoreHealthCounters } from './engine/health';
export type { MemoryPluginOptions } from './discord/options';
export { turnFromMessages, type TurnFromMessagesInput, type PersonaIdentity } from './discord/turn';
export { contextForMessage, visibleChannelIds, EMPTY_CONTEXT, type ContextForMessageOptions } from './discord/context';
export {
	shortTermMemoryTool,
	shortTermMemoryToolFor,
	handleShortTermMemoryTool,
	SHORT_TERM_MEMORY_TOOL_NAME,
	rememberTool,
	handleRememberTool,
	REMEMBER_TOOL_NAME
} from './discord/tool';
export { RememberToolSchema, type RememberArguments } from './engine/remember';

import type { MemoryEngine } from './engine/MemoryEngine';
import type { MemoryErrorContext, MemoryEvents, MemoryStoreRecovery } from './discord/events';
import type { MemoryPluginOptions } from './discord/options';
import type { MemoryTurn, RecordTurnResult } from './engine/types';

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
