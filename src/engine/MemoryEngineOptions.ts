import type Keyv from 'keyv';
import type { MemoryConfig } from './config';
import { MemoryError } from './errors';
import { shownValue } from './schemas/shownValue';
import type { MemoryLogger } from './MemoryLogger';
import type { StoreHealthChange } from './schemas/storeHealth';

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

/** What each option that is not a setting must be, and how it is told. */
const OPTION_SHAPES: Record<'keyv' | 'now' | 'logger' | 'env' | 'onStoreHealth', [(value: unknown) => boolean, string]> = {
	keyv: [(value) => typeof value === 'object' && value !== null && typeof (value as { get?: unknown }).get === 'function', 'a Keyv instance'],
	now: [(value) => typeof value === 'function', 'a function returning milliseconds since the epoch'],
	logger: [
		(value) =>
			typeof value === 'object' &&
			value !== null &&
			typeof (value as { warn?: unknown }).warn === 'function' &&
			typeof (value as { error?: unknown }).error === 'function',
		'an object with warn and error functions (console fits)'
	],
	env: [(value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'an object of environment variables'],
	onStoreHealth: [(value) => typeof value === 'function', 'a function']
};

/**
 * `options` once each option that is not a setting is what it must be: `INVALID_CONFIG` names every one that is not, as a
 * bad setting does (the settings themselves are checked by `resolveConfig`).
 */
export function checkEngineOptions(options: unknown): MemoryEngineOptions {
	if (typeof options !== 'object' || options === null)
		throw new MemoryError('INVALID_CONFIG', `MemoryEngine.open takes an object of options; got ${shownValue(options)}.`);
	const problems: string[] = [];
	for (const [name, [fits, expected]] of Object.entries(OPTION_SHAPES)) {
		let value: unknown;
		try {
			value = (options as Record<string, unknown>)[name];
		} catch (error) {
			problems.push(`${name} could not be read (${error instanceof Error ? error.message : shownValue(error)})`);
			continue;
		}
		if (value !== undefined && !fits(value)) problems.push(`${name}: expected ${expected}; got ${shownValue(value)}`);
	}
	if (problems.length > 0) throw new MemoryError('INVALID_CONFIG', `Invalid MemoryEngine.open options: ${problems.join('; ')}.`);
	return options as MemoryEngineOptions;
}
