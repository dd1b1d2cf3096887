import { Listener } from '@sapphire/framework';
import { type MemoryErrorContext, MemoryEvents } from '../src/plugin/events';
import { MemoryError } from '../src/engine';

/** Logs memory failures through `container.logger`; switch it off with `memory.defaultErrorListener: false`. */
export class PluginListener extends Listener<typeof MemoryEvents.Error> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: MemoryEvents.Error });
	}

	public run(error: unknown, context: MemoryErrorContext): void {
		const where = [context.phase, context.userId && `user ${context.userId}`, context.channelId && `channel ${context.channelId}`]
			.filter(Boolean)
			.join(', ');
		// An expected failure (a store outage, bad input) reads best as one line; anything else keeps its stack.
		this.container.logger.error(`[memory] ${where}:`, error instanceof MemoryError ? `${error.code}: ${error.message}` : error);
	}
}
