import { linesByDay, timeLabel } from '../../format/lines';
import { flattenForContext } from '../../format/text';
import { chronological } from '../../ledger/entries';
import type { DigestLine } from '../../schemas';

/**
 * The digest as context lines: `[18:05] Maya: text`, each day opened by its date line, as
 * `datedLines` shows messages. Lines must be in chronological order.
 */
export function renderDigest(lines: readonly DigestLine[]): string[] {
	return linesByDay(lines, (line) => line.ts, digestLineText);
}

/** One digest line with its time (UTC), without its date. */
export function digestLineText(line: DigestLine): string {
	return `[${timeLabel(line.ts)}] ${flattenForContext(line.text)}`;
}

/** The order lines are stored and shown in: chronological, the first source id breaking ties, so the order is the same everywhere. */
export function byLine(a: DigestLine, b: DigestLine): number {
	return chronological(a.ts, a.sourceIds[0] ?? '', b.ts, b.sourceIds[0] ?? '');
}
