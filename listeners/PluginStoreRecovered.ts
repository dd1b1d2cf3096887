import { Listener } from '@sapphire/framework';
import { MemoryEvents, type MemoryStoreRecovery } from '../src/plugin/events';

/** Logs the end of a store outage, the counterpart of the one `memoryError` its start emitted; off with `memory.defaultErrorListener: false`. */
export class PluginListener extends Listener<typeof MemoryEvents.StoreRecovered> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: MemoryEvents.StoreRecovered });
	}

	public run({ downMs, failedCalls }: MemoryStoreRecovery): void {
		this.container.logger.info(
			`[memory] store recovered after ${(downMs / 1000).toFixed(1)} s; ${failedCalls} store calls failed meanwhile (memory.stats().store).`
		);
	}
}
