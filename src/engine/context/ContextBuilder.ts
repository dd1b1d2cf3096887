import type { ReplyCalls } from '../ReplyCalls';
import { type ContextRequest, ContextRequestSchema, type MemoryContext, parseInput } from '../schemas';
import type { EngineStats } from '../stats/EngineStats';
import { buildContext } from './buildContext';
import type { ContextParts } from './ContextParts';
import type { PendingSources } from './PendingSources';
import { boundedGroups } from '../records/contextSourceRecords';

/** What building a context works with. */
export interface ContextBuilderParts {
	context: ContextParts;
	stats: EngineStats;
	replyCalls: ReplyCalls;
	/** Where each context's sources wait for the turn that answers with it. */
	pending: PendingSources;
	now: () => number;
}

/** `buildContext` as a bot calls it before each reply: checked, timed and counted, and known to the background work that yields to it. */
export class ContextBuilder {
	public constructor(private readonly parts: ContextBuilderParts) {}

	public build(request: ContextRequest): Promise<MemoryContext> {
		const { context, stats, replyCalls, pending, now } = this.parts;
		return replyCalls.run(() =>
			stats.context(async () => {
				const parsed = parseInput(ContextRequestSchema, request, 'context request');
				const at = now();
				const built = await buildContext(context, parsed, at);
				pending.note(parsed, { at, ...boundedGroups(built.sources) });
				return built.context;
			})
		);
	}
}
