import type { StoredMessage } from '../schemas';
import { dayLabel, messageLine } from './lines';
import { dateLine } from './pluginLines';
import type { PersonaNames } from './speakers';
import { flattenForContext } from './text';

/**
 * Two messages one after the other belong to one burst when one speaker sent both within this long: people text in bursts
 * of short lines ("omg", "guess what", "i got the job"), which read as one thing said.
 */
export const BURST_GAP_MS = 120_000;
/** What joins the messages of a burst on one line, after one speaker label. */
export const BURST_SEPARATOR = ' / ';

const DAY = 86_400_000;

/** Whether `next`, the message right after `previous` in the conversation, continues its burst (the same speaker, soon after, the same day). */
export function continuesBurst(previous: StoredMessage, next: StoredMessage): boolean {
	return (
		previous.role === next.role &&
		previous.authorId === next.authorId &&
		previous.personaId === next.personaId &&
		previous.authorName === next.authorName &&
		soonAfter(previous.ts, next.ts)
	);
}

/** Whether a message of the same speaker sent at `next` is soon enough after one sent at `previous` to continue its burst. */
export function soonAfter(previous: number, next: number): boolean {
	return next >= previous && next - previous <= BURST_GAP_MS && Math.floor(previous / DAY) === Math.floor(next / DAY);
}

/** `' / text'`: a message's text as it continues the line of its burst. */
export function burstPiece(message: StoredMessage): string {
	return `${BURST_SEPARATOR}${flattenForContext(message.text)}`;
}

/**
 * Lines for messages in chronological order, each day opened by its date line, and each burst on one line: `Maya: omg /
 * guess what / i got the job`. `adjacent(index)` says whether message `index` came right after message `index - 1` in
 * the conversation (none between them left out): only those join a line.
 */
export function burstLines(messages: readonly StoredMessage[], personas: PersonaNames, adjacent: (index: number) => boolean): string[] {
	const lines: string[] = [];
	let day = '';
	messages.forEach((message, index) => {
		const label = dayLabel(message.ts);
		if (label !== day) {
			lines.push(dateLine(label));
			day = label;
		} else if (index > 0 && adjacent(index) && continuesBurst(messages[index - 1]!, message)) {
			lines[lines.length - 1] += burstPiece(message);
			return;
		}
		lines.push(messageLine(message, personas));
	});
	return lines;
}
