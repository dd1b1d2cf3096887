import type { MemoryError } from '../errors';

/** Whether the store can be reached, and what its outages cost: `memory.stats().store`. */
export interface StoreHealthCounters {
	/** False from the first call that could not reach the store until a call started after that one succeeds. */
	available: boolean;
	/** Outages since the engine opened. */
	outages: number;
	/** Calls that failed because the store could not be reached, over every outage. */
	unavailableCalls: number;
	/** The current or last outage: when it started and ended (milliseconds since the epoch), the calls that failed in it, and the first failure. */
	lastOutage: { startedAt: number; endedAt: number | null; failedCalls: number; firstError: string } | null;
}

/** The store became unreachable (once per outage, with the first failure) or is back (once per recovery). */
export type StoreHealthChange =
	| { available: false; at: number; error: MemoryError }
	| { available: true; at: number; downMs: number; failedCalls: number };
