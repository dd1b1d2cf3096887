import type { MemoryConfig } from '../config';
import { tokenCount } from '../format/tokens';
import type { ContextBlock, ShortTermEntry } from '../schemas';

/** The text of the nudge block; the tool's name is the one the plugin offers. */
export function nudgeText(turns: number): string {
	return (
		`Memory: ${turns} turns since this conversation's summary was refreshed. Call update_short_term_memory with a short summary of ` +
		`what matters so far.`
	);
}

/** Asks the persona to refresh the summary every turn once `MEMORY_REFRESH_CADENCE` turns have passed without it. */
export function nudgeBlock(entry: ShortTermEntry, config: MemoryConfig, budget: number): ContextBlock | null {
	if (entry.turnsSinceRefresh < config.refreshCadence) return null;
	const text = nudgeText(entry.turnsSinceRefresh);
	const tokens = tokenCount(text);
	return tokens <= budget ? { tier: 'nudge', text, tokens, sourceIds: [] } : null;
}
