import { burstLines } from '../format/bursts';
import { datedLines, dayLabel, messageLine } from '../format/lines';
import { Headers } from '../format/pluginLines';
import type { PersonaNames } from '../format/speakers';
import { flattenForContext } from '../format/text';
import { tokenCount, truncateToTokens } from '../format/tokens';
import { byTime } from '../ledger/entries';
import type { ContextBlock, StoredMessage } from '../schemas';
import { dayLineTokens, fitMessages, measured } from './budget';

/** The fewest tokens of an end-cut message shown next to whole ones in the recent tier. */
const MIN_CUT_TOKENS = 16;

/** The recent tier: the newest crude messages of this scope, verbatim, newest kept first. */
export function recentBlock(messages: StoredMessage[], budget: number, personas: PersonaNames): ContextBlock | null {
	if (messages.length === 0) return null;
	const header = Headers.recent;
	const fixed = tokenCount(header);
	const newestFirst = [...messages].sort(byTime).reverse();
	let chosen = fitMessages(newestFirst, budget, fixed, personas);
	// A message too long for the tier even alone (a member's 4,000 characters) is shown end-cut in the room
	// left rather than left out: the newest such one, where the window reaches it (every newer message is
	// shown, or it sits between shown ones).
	const fitsAlone = (message: StoredMessage) =>
		fixed + dayLineTokens(dayLabel(message.ts)) + tokenCount(messageLine(message, personas), budget) + 2 <= budget;
	const passed = newestFirst.find((message) => !chosen.includes(message) && !fitsAlone(message));
	const reached =
		passed !== undefined &&
		(newestFirst.slice(0, newestFirst.indexOf(passed)).every((newer) => chosen.includes(newer)) ||
			chosen.some((shown) => byTime(shown, passed) < 0));
	if (passed && reached) {
		const used = chosen.length === 0 ? fixed : measured([header, ...datedLines(chosen, personas)]).tokens + 1;
		const day = dayLabel(passed.ts);
		const dayLine = chosen.some((message) => dayLabel(message.ts) === day) ? 0 : dayLineTokens(day) + 1;
		// The date line and the speaker take their tokens too.
		const room = budget - used - dayLine - tokenCount(messageLine({ ...passed, text: '' }, personas)) - 2;
		// Beside whole messages, a cut of a few tokens would say nothing.
		const text = chosen.length === 0 || room >= MIN_CUT_TOKENS ? truncateToTokens(flattenForContext(passed.text), room) : '';
		if (text) chosen = fitMessages([...chosen].reverse().concat({ ...passed, text }), budget, fixed, personas);
	}
	if (chosen.length === 0) return null;
	// A burst's messages share one line where none between them was left out.
	const order = [...messages].sort(byTime);
	const place = (message: StoredMessage) => order.findIndex((candidate) => candidate.id === message.id);
	const lines = burstLines(chosen, personas, (index) => place(chosen[index]!) === place(chosen[index - 1]!) + 1);
	const { text, tokens } = measured([header, ...lines]);
	return { tier: 'recent', text, tokens, sourceIds: chosen.map((message) => message.id) };
}
