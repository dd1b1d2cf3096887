import { linesByDay, timeLabel } from '../../format/lines';
import { flattenForContext } from '../../format/text';
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
