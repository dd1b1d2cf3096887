import { byTime } from '../ledger/entries';
import { dayLabel, messageLine } from '../format/lines';
import { dateLine } from '../format/pluginLines';
import type { PersonaNames } from '../format/speakers';
import { joinedTokenCount, tokenCount } from '../format/tokens';
import type { StoredMessage } from '../schemas';

/**
 * How the token budget is shared (docs/context.md documents it). Tiers are filled in this order, each
 * up to its share of what is left; whatever a tier does not use passes to the relevant tier,
 * which takes the rest.
 */
export const BudgetPolicy = {
	/** The newest messages of this scope, verbatim. */
	recentShare: 0.15,
	/** This channel's summary, then other channels. */
	summaryShare: 0.25,
	/**
	 * This channel's digest (when there is no summary) takes at most this share of the summary tier:
	 * other channels keep room, and what is left passes to the relevant tier. A digest line is worth less
	 * to a question than the message the relevant tier would show in its place (docs/context.md measures
	 * it: half the tier -> 30 %, 73.1 -> 74.4 % recall at 1,500 tokens on the generated set).
	 */
	digestShare: 0.3,
	/** The user's profile and matching topic notes. */
	profileShare: 0.15,
	/** Tokens kept for the blank line between two blocks. */
	blockSeparatorTokens: 2,
	/** No single older message may take more than this share of the relevant tier. */
	maxMessageShare: 0.35
} as const;

/**
 * Picks messages, in the priority order given, while their lines (and the date lines that
 * open each day) fit in `budget` tokens on top of `fixedTokens`. Returns them oldest first.
 */
export function fitMessages(candidates: Iterable<StoredMessage>, budget: number, fixedTokens: number, personas: PersonaNames): StoredMessage[] {
	const tokens = (message: StoredMessage, limit: number) => messageTokens(message, personas, limit);
	return fitByDay(candidates, budget, fixedTokens, Number.POSITIVE_INFINITY, tokens, timeOf).chosen.sort(byTime);
}

/**
 * {@link fitMessages} of any items with a time and a line; an item whose line takes more than `maxItemTokens`
 * is passed over. `tokensOf` may stop counting past the limit it is given (any count above it means "does not fit").
 * `joinedTokensOf`, when given, is what an item costs when it would join a line already chosen (a burst's next
 * message), or undefined when it would not. Returns the chosen in the order given (the caller puts them in time order)
 * and the tokens they take as dated lines under `fixedTokens`' header, each line and day line with its newline (joined
 * items counted as joined when they were chosen: never below what the lines take).
 */
export function fitByDay<T>(
	candidates: Iterable<T>,
	budget: number,
	fixedTokens: number,
	maxItemTokens: number,
	tokensOf: (item: T, limit: number) => number,
	time: (item: T) => number,
	joinedTokensOf?: (item: T, chosen: ReadonlySet<T>) => number | undefined
): { chosen: T[]; tokens: number } {
	const chosen: T[] = [];
	const picked = new Set<T>();
	const days = new Set<string>();
	let used = fixedTokens;
	for (const item of candidates) {
		// Nothing useful fits in the last few tokens.
		if (budget - used < 8) break;
		const day = dayLabel(time(item));
		let cost = joinedTokensOf?.(item, picked);
		if (cost === undefined) {
			const lineTokens = tokensOf(item, Math.min(maxItemTokens, budget - used));
			if (lineTokens > maxItemTokens) continue;
			cost = lineTokens + 1 + (days.has(day) ? 0 : dayLineTokens(day) + 1);
		}
		if (used + cost > budget) continue;
		used += cost;
		days.add(day);
		chosen.push(item);
		if (joinedTokensOf) picked.add(item);
	}
	return { chosen, tokens: used };
}

const timeOf = (message: StoredMessage) => message.ts;

const dayTokens = new Map<string, number>();

/** Tokens of the line `[2026-03-02]` that opens a day ({@link dayLabel}'s labels are few, and so are these). */
export function dayLineTokens(label: string): number {
	let tokens = dayTokens.get(label);
	if (tokens === undefined) {
		tokens = tokenCount(dateLine(label));
		if (dayTokens.size >= 4096) dayTokens.clear();
		dayTokens.set(label, tokens);
	}
	return tokens;
}

/**
 * Tokens of a message's line (see {@link messageLine}), read no further than `limit` tokens; lines recur from reply to
 * reply, and their counts are cached.
 */
export function messageTokens(message: StoredMessage, personas: PersonaNames, limit = Number.POSITIVE_INFINITY): number {
	return tokenCount(messageLine(message, personas), limit);
}

/** Lines with their true (upper-bound) token count. */
export function measured(lines: string[]): { text: string; tokens: number } {
	return { text: lines.join('\n'), tokens: joinedTokenCount(lines) };
}
