import type { StoredMessage } from '../schemas';
import { dateLine } from './pluginLines';
import { type PersonaNames, speakerName } from './speakers';
import { flattenForContext } from './text';

const MINUTE = 60_000;

const DAY = 86_400_000;
const dayLabels = new Map<number, string>();

/** `2026-03-02` (UTC): the day a date line names ({@link dateLine}), which groups message lines. */
export function dayLabel(ts: number): string {
	const day = Math.floor(ts / DAY);
	let label = dayLabels.get(day);
	if (label === undefined) {
		label = new Date(ts).toISOString().slice(0, 10);
		// A few years of days at most; past that the map starts again rather than grow.
		if (dayLabels.size >= 4096) dayLabels.clear();
		dayLabels.set(day, label);
	}
	return label;
}

/** `18:05` (UTC): the time a digest line opens with. */
export function timeLabel(ts: number): string {
	const minutes = Math.floor((((ts % DAY) + DAY) % DAY) / MINUTE);
	const hours = Math.floor(minutes / 60);
	return `${hours < 10 ? '0' : ''}${hours}:${minutes % 60 < 10 ? '0' : ''}${minutes % 60}`;
}

/**
 * `Maya: text`: a message with its speaker (see {@link speakerName}), one line per message, under the date line of its day.
 * No time of day: `[18:05] ` took 5 tokens of a line of 17 on average, and the context holds more messages without it
 * (docs/context.md measures it: 67.0 -> 73.1 % recall at 1,500 tokens on the generated set).
 */
export function messageLine(message: StoredMessage, personas: PersonaNames): string {
	return `${speakerName(message, personas)}: ${flattenForContext(message.text)}`;
}

/** `- text`: a stored text that has a line to itself (a note, a summary) opens it with a dash, never with its own words. */
export function itemLine(text: string): string {
	return `- ${flattenForContext(text)}`;
}

/** `5 min ago`, `3 h ago`, `2 d ago`: how long ago, for labels of other channels. */
export function relativeTime(ts: number, now: number): string {
	const elapsed = Math.max(0, now - ts);
	if (elapsed < MINUTE) return 'just now';
	if (elapsed < 60 * MINUTE) return `${Math.floor(elapsed / MINUTE)} min ago`;
	if (elapsed < 48 * 60 * MINUTE) return `${Math.floor(elapsed / (60 * MINUTE))} h ago`;
	return `${Math.floor(elapsed / (24 * 60 * MINUTE))} d ago`;
}

/** Lines for messages in chronological order, each day opened by its date, so no line repeats the date. */
export function datedLines(messages: readonly StoredMessage[], personas: PersonaNames): string[] {
	return linesByDay(
		messages,
		(message) => message.ts,
		(message) => messageLine(message, personas)
	);
}

/** `line` of each item, in the order given (chronological), each day opened by its date line. */
export function linesByDay<T>(items: readonly T[], time: (item: T) => number, line: (item: T) => string): string[] {
	const lines: string[] = [];
	let day = '';
	for (const item of items) {
		const label = dayLabel(time(item));
		if (label !== day) {
			lines.push(dateLine(label));
			day = label;
		}
		lines.push(line(item));
	}
	return lines;
}
