import type { Client } from 'discord.js';
import { isOutage } from '../engine';
import { type MemoryErrorContext, MemoryEvents } from './events';

/**
 * Emits `memoryError` for a failure of memory, except a call that failed because the store is
 * unreachable: the plugin reports an outage once, when it starts (phase `store`), and its end as
 * `memoryStoreRecovered`; the calls that fail meanwhile are counted in `memory.stats()`.
 */
export function reportMemoryError(client: Client, error: unknown, context: MemoryErrorContext): void {
	if (isOutage(error)) return;
	client.emit(MemoryEvents.Error, error, context);
}
