/** The client events the plugin emits and listens to. */
export const MemoryEvents = {
	/** Emitted by the host after each generation turn, with a `MemoryTurn`; the plugin records it. */
	TurnCompleted: 'memoryTurnCompleted',
	/** Emitted by the plugin after a turn was recorded or skipped, with the turn and the result. */
	TurnRecorded: 'memoryTurnRecorded',
	/** Emitted by the plugin when memory failed; a reply is never broken by it. */
	Error: 'memoryError'
} as const;

/** Where in the plugin an error happened. */
export type MemoryErrorPhase = 'open' | 'capture' | 'context' | 'command' | 'tool' | 'message-change';

/** The payload of {@link MemoryEvents.Error}. */
export interface MemoryErrorContext {
	phase: MemoryErrorPhase;
	userId?: string;
	channelId?: string;
}
