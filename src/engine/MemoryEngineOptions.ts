import type Keyv from 'keyv';
import type { MemoryConfig } from './config';
import type { MemoryLogger } from './MemoryLogger';
import type { StoreHealthChange } from './store/StoreHealth';

/** Options of {@link MemoryEngine.open}; every field is optional. */
export interface MemoryEngineOptions {
	/** Overrides `MEMORY_STORE_URL`. */
	storeUrl?: string;
	/** A Keyv the host already has; the engine then never closes it. */
	keyv?: Keyv;
	/** Overrides the environment, field by field. */
	config?: Partial<MemoryConfig>;
	/** The clock, in milliseconds since the epoch. @default Date.now */
	now?: () => number;
	/** @default console */
	logger?: MemoryLogger;
	/** The environment to read settings from. @default process.env */
	env?: NodeJS.ProcessEnv;
	/**
	 * Told when the store becomes unreachable (once per outage, with its first failure) and when it is back (once); without it the
	 * engine logs both.
	 */
	onStoreHealth?: (change: StoreHealthChange) => void;
}
