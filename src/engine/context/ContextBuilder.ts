import type { ReplyCalls } from '../ReplyCalls';
import { type ContextRequest, ContextRequestSchema, type MemoryContext, parseInput } from '../schemas';
import type { EngineStats } from '../stats/EngineStats';
import { buildContext } from './buildContext';
import type { ContextParts } from './ContextParts';

/** `buildContext` as a bot calls it before each reply: checked, timed and counted, and known to the background work that yields to it. */
export class ContextBuilder {
	public constructor(private readonly parts: { context: ContextParts; stats: EngineStats; replyCalls: ReplyCalls; now: () => number }) {}

	public build(request: ContextRequest): Promise<MemoryContext> {
		const { context, stats, replyCalls, now } = this.parts;
		return replyCalls.run(() =>
			stats.context(async () => buildContext(context, parseInput(ContextRequestSchema, request, 'context request'), now()))
		);
	}
}
