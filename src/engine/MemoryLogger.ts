import type { StoreHealthChange } from './schemas/storeHealth';

/** Where the engine logs; `console` fits, and so does Sapphire's `container.logger`. */
export interface MemoryLogger {
	/** A problem memory works around: a damaged value skipped, the store back after an outage. */
	warn(...values: unknown[]): void;
	/** A failure: the store unreachable, a write that did not land. */
	error(...values: unknown[]): void;
}

/** The default of `onStoreHealth`: one line when an outage starts, one when it ends. */
export function logStoreHealth(logger: MemoryLogger): (change: StoreHealthChange) => void {
	return (change) => {
		if (change.available) {
			logger.warn(`[memory] the store is back after ${(change.downMs / 1000).toFixed(1)} s; ${change.failedCalls} calls failed meanwhile.`);
		} else {
			logger.error(
				`[memory] the store is unreachable (${change.error.message}); replies go on without memory and turns are not captured until ` +
					`it is back.`
			);
		}
	};
}
