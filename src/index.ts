// The package's public surface, listed name by name: what a bot developer uses. The repository's own tools (the CLI,
// the bench, the examples, the tests) import the engine's internals from `src/engine` instead. The record of this surface
// is etc/sapphire-plugin-memory.api.md (`npm run api` updates it; test/package/packed.test.ts holds the build to it).

// The engine and its options.
export {
	MemoryEngine,
	type MemoryEngineOptions,
	type MemoryConfig,
	type MemoryLogger,
	type StoreHealthChange,
	// Errors.
	MemoryError,
	type MemoryErrorCode,
	// `recordTurn`.
	PrivacyLevel,
	type MemoryTurn,
	type TurnMessage,
	type TurnResponse,
	type RecordTurnResult,
	type SkipReason,
	// `buildContext`.
	type ContextRequest,
	type MemoryContext,
	type ContextBlock,
	type ContextTier,
	// Settings.
	type UserSettings,
	type UserSettingsPatch,
	type ServerSettings,
	type ServerSettingsPatch,
	// The persona's tools.
	type SummaryTarget,
	type WrittenSummary,
	type RememberArguments,
	// Servers and members leaving.
	type ServerPurge,
	type MemberErasure,
	// `/session`: status, clear, export, and messages edited or deleted on Discord.
	type StatusLocation,
	type MemoryStatus,
	type StorageKind,
	type ClearShortTermResult,
	type ClearAllResult,
	type MessagesChange,
	type MessagesChangeResult,
	type ForgetMessageRequest,
	type ForgetMessageResult,
	type RememberMessageRequest,
	type RememberMessageResult,
	type ContextSources,
	type ContextSourceLine,
	type ContextSourcesViewer,
	type SourceTier,
	type UserExport,
	type ExportedEntry,
	type ExportedMessage,
	// Long-term memory.
	type UserProfile,
	type ProfilePatch,
	type TopicNote,
	type TopicInput,
	type TopicListing,
	// Counters and operators' calls.
	type MemoryCounters,
	type LatencyHistogram,
	LATENCY_BUCKETS_MS,
	type SummarizerCounters,
	type SummaryRejection,
	type ChatFailureKind,
	type StoreHealthCounters,
	type SweepCounters,
	type StoreInventory,
	type KeyKind,
	type ChannelQuery,
	type ChannelInspection,
	type ScopeInspection,
	type ResealResult,
	type SweepResult
} from './engine';

// The Sapphire plugin: options, events and the helpers a bot's message handler calls.
export type { MemoryPluginOptions, CooledSubcommand, SessionCooldownOptions } from './plugin/options';
export { SESSION_STRINGS, type SessionStringKey, type SessionStringOverrides } from './plugin/sessionStrings';
export { MemoryEvents, type MemoryErrorContext, type MemoryErrorPhase, type MemoryStoreRecovery } from './plugin/events';
export type { PersonaIdentity } from './plugin/location';
export { turnFromMessages, type TurnFromMessagesInput } from './plugin/turn';
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

// Prometheus metrics.
export { registerMemoryMetrics, METRIC_NAMES, type MemoryMetricsOptions, type MetricsRegistry } from './ops/prometheus';

import type { MemoryEngine, MemoryTurn, RecordTurnResult } from './engine';
import type { MemoryErrorContext, MemoryEvents, MemoryStoreRecovery } from './plugin/events';
import type { MemoryPluginOptions } from './plugin/options';

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
