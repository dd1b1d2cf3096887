import type { PlaceHit, ScopeIndex } from '../archive/ScopeIndex';
import { burstLines, burstPiece, soonAfter } from '../format/bursts';
import { messageLine } from '../format/lines';
import { Headers } from '../format/pluginLines';
import { PersonaNames, speakerName } from '../format/speakers';
import { tokenCount } from '../format/tokens';
import { chronological } from '../ledger/entries';
import type { ContextBlock } from '../schemas';
import { BudgetPolicy, fitByDay } from './budget';
import { RepeatedLines } from './RepeatedLines';

/**
 * The relevant tier: hits best first, then the message after each hit and the one before,
 * as many as fit (none taking more than its share, a repeated line once: {@link RepeatedLines}), shown oldest first. Hits are places in the index
 * (see {@link ScopeIndex.rank}), read field by field: only the messages shown are made.
 */
export function relevantBlock(
	index: ScopeIndex,
	hits: readonly PlaceHit[],
	usable: (at: number) => boolean,
	budget: number,
	personas: PersonaNames
): ContextBlock | null {
	const usableHits = hits.filter((hit) => usable(hit.at));
	if (usableHits.length === 0 || budget <= 0) return null;
	const header = Headers.relevant;
	const time = (at: number) => index.timeAt(at);
	// The index counted each message's line when it took it, with no persona in view: a line this context labels otherwise is counted again.
	const tokens = (at: number) => {
		const speaker = index.speakerAt(at);
		if (speakerName(speaker, personas) === speakerName(speaker, PersonaNames.none)) return index.lineTokensAt(at);
		return tokenCount(messageLine(index.messageAt(at), personas));
	};
	// A message right before or after a chosen one of its burst joins that one's line: its text and a separator, no label.
	// Read from the index's columns: a speaker is one object for all its messages.
	const burstOf = (at: number, other: number) =>
		other >= 0 &&
		other < index.size &&
		index.speakerAt(at) === index.speakerAt(other) &&
		soonAfter(index.timeAt(Math.min(at, other)), index.timeAt(Math.max(at, other)));
	const joinedTokens = (at: number, chosen: ReadonlySet<number>) =>
		(chosen.has(at - 1) && burstOf(at, at - 1)) || (chosen.has(at + 1) && burstOf(at, at + 1))
			? tokenCount(burstPiece(index.messageAt(at)))
			: undefined;
	// The tokens fitting counted are those of the block: a day's messages share its date line in time order too.
	const { chosen, tokens: total } = fitByDay(
		candidates(index, usableHits, usable),
		budget,
		tokenCount(header),
		Math.floor(budget * BudgetPolicy.maxMessageShare),
		tokens,
		time,
		joinedTokens
	);
	if (chosen.length === 0) return null;
	chosen.sort((a, b) => chronological(time(a), index.idAt(a), time(b), index.idAt(b)));
	const messages = chosen.map((at) => index.messageAt(at));
	// The tokens counted as the lines were chosen are the lines' own: a joined message's text and separator add to its line's
	// count exactly (o200k splits before the separator's space), and a message that joined two lines counted one label more.
	const text = [header, ...burstLines(messages, personas, (at) => chosen[at]! === chosen[at - 1]! + 1)].join('\n');
	return { tier: 'relevant', text, tokens: total, sourceIds: messages.map((message) => message.id) };
}

/**
 * The tier's candidates in the order they are offered: the hits, best first; then, in the room they leave, the message
 * after each hit and the one before. Each is read as the tier takes it, so that neighbours the budget never reaches cost
 * nothing; a line said again ("Hey you. Long day?", case aside, or nearly the same words) is offered once, where it ranks
 * best.
 */
function* candidates(index: ScopeIndex, hits: readonly PlaceHit[], usable: (at: number) => boolean): Generator<number> {
	const offered = new Set<number>();
	const said = new RepeatedLines();
	const offer = (at: number) => {
		if (at < 0 || at >= index.size || offered.has(at) || !usable(at)) return false;
		offered.add(at);
		return !said.repeats(index.texts[at]!, index.wordMaskAt(at));
	};
	for (const { at } of hits) if (offer(at)) yield at;
	for (const { at } of hits) {
		if (offer(at + 1)) yield at + 1;
		if (offer(at - 1)) yield at - 1;
	}
}
