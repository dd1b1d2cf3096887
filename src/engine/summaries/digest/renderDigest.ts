import { linesByDay, timeLabel } from '../../format/lines';
import { ANSWER_MARK } from '../../format/pluginLines';
import { flattenForContext } from '../../format/text';
import { chronological } from '../../ledger/entries';
import type { DigestLine } from '../../schemas';

/** How a stored digest line joins a question to its answer (`foldIntoDigest`). */
export const ANSWER_JOIN = ' → ';

/**
 * The digest as context lines: `[18:05] Maya: text`, each day opened by its date line, as `datedLines` shows messages, and
 * a question's answer on the line under it, `→ Sol: yes`. Lines must be in chronological order.
 */
export function renderDigest(lines: readonly DigestLine[]): string[] {
	return linesByDay(lines, (line) => line.ts, digestLineText);
}

/**
 * One digest line with its time (UTC), without its date; a question folded with its answer takes two lines, the answer's
 * opening with {@link ANSWER_MARK}. The fold joins them with ` → ` and writes a member's own `→` as `->`, so the first
 * ` → ` of a stored line is the join; on its own line the answer cannot be imitated by text in the middle of another.
 */
export function digestLineText(line: DigestLine): string {
	const text = flattenForContext(line.text);
	const join = text.indexOf(ANSWER_JOIN);
	const time = `[${timeLabel(line.ts)}] `;
	if (join < 0) return `${time}${text}`;
	return `${time}${text.slice(0, join)}\n${ANSWER_MARK}${text.slice(join + ANSWER_JOIN.length)}`;
}

/** The order lines are stored and shown in: chronological, the first source id breaking ties, so the order is the same everywhere. */
export function byLine(a: DigestLine, b: DigestLine): number {
	return chronological(a.ts, a.sourceIds[0] ?? '', b.ts, b.sourceIds[0] ?? '');
}
