/** The client events the plugin emits and listens to. */
export const MemoryEvents = {
	/** Emitted by the host after each generation turn, with a `MemoryTurn`; the plugin records it. */
	TurnCompleted: 'memoryTurnCompleted',
	/** Emitted by the plugin after a turn was recorded or skipped, with the turn and the result. */
	TurnRecorded: 'memoryTurnRecorded',
	/**
	 * Emitted by the plugin when memory failed; a reply is never broken by it. A store outage is
	 * emitted once, when it starts (phase `store`), not once per call that fails during it.
	 */
	Error: 'memoryError',
	/** Emitted by the plugin once when the store answers again after an outage, with how long it was down. */
	StoreRecovered: 'memoryStoreRecovered'
} as const;

/** Where in the plugin an error happened. */
export type MemoryErrorPhase = 'open' | 'capture' | 'context' | 'command' | 'tool' | 'message-change' | 'server-change' | 'store';

/** The payload of {@link MemoryEvents.Error}. */
export interface MemoryErrorContext {
	/** Where in the plugin it happened. */
	phase: MemoryErrorPhase;
	/** The member whose turn, context, command or tool call failed, when there is one. */
	userId?: string;
	/** The channel it happened in, when there is one. */
	channelId?: string;
	/** The server, for `server-change` (with the member, when a member left it). */
	serverId?: string;
}

/** The payload of {@link MemoryEvents.StoreRecovered}. */
export interface MemoryStoreRecovery {
	/** How long the store was unreachable, in milliseconds. */
	downMs: number;
	/** Store calls that failed meanwhile (each turn and context tries one or more). */
	failedCalls: number;
}
