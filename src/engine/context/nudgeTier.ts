import type { MemoryConfig } from '../config';
import { nudgeLine } from '../format/pluginLines';
import { tokenCount } from '../format/tokens';
import type { ContextBlock, ShortTermEntry } from '../schemas';

/** Asks the persona to refresh the summary every turn once `MEMORY_REFRESH_CADENCE` turns have passed without it. */
export function nudgeBlock(entry: ShortTermEntry, config: MemoryConfig, budget: number): ContextBlock | null {
	if (entry.turnsSinceRefresh < config.refreshCadence) return null;
	const text = nudgeLine(entry.turnsSinceRefresh);
	const tokens = tokenCount(text);
	return tokens <= budget ? { tier: 'nudge', text, tokens, sourceIds: [] } : null;
}
