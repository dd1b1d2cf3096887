export * from './engine';
export { registerMemoryMetrics, METRIC_NAMES, type MemoryMetricsOptions, type MetricsRegistry } from './ops/prometheus';
export { MemoryEvents, type MemoryErrorContext, type MemoryErrorPhase, type MemoryStoreRecovery } from './plugin/events';
export type { MemoryPluginOptions } from './plugin/options';
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
