import type { ExportedMessage, StoredMessage } from '../../engine';
import { flattenForContext } from '../../engine/format/text';

/** Bidirectional controls: each reorders what a terminal shows after it, hiding what the text really says. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/**
 * A text read from the store, as the CLI prints it: on one line and inert in a terminal. As the context writes stored text
 * (`flattenForContext`): line breaks become ` ⏎ `, every other control character (ESC and BEL of escape sequences, CR,
 * C1 controls) U+FFFD; and each bidirectional control shows as its code, `\u{202E}`. The CLI writes every line's start
 * itself: stored text only follows a label or an indent and a dash.
 */
export function shown(text: string): string {
	return flattenForContext(text).replace(BIDI_CONTROLS, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}

/** `2026-03-02 18:00:00 UTC`; a dash for none. */
export function time(value: number | string | null | undefined): string {
	if (value === null || value === undefined) return '–';
	return `${new Date(value).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `1,234`. */
export function count(value: number): string {
	return value.toLocaleString('en-US');
}

/** `812 B`, `4.0 KiB`, `1.2 MiB`. */
export function bytes(value: number): string {
	const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
	let size = value;
	let unit = 0;
	while (size >= 1024 && unit < units.length - 1) {
		size /= 1024;
		unit++;
	}
	return unit === 0 ? `${size} B` : `${size.toFixed(1)} ${units[unit]}`;
}

/** Label and value rows, the labels padded to one width. */
export function rows(entries: readonly [label: string, value: string | number][], indent = '  '): string {
	const width = Math.max(0, ...entries.map(([label]) => label.length));
	return entries.map(([label, value]) => `${indent}${label.padEnd(width)}  ${typeof value === 'number' ? count(value) : value}`).join('\n');
}

/** Who wrote a message, as a reader tells them apart. */
function speaker(message: Pick<StoredMessage, 'role' | 'authorId' | 'authorName' | 'personaId'>): string {
	if (message.role === 'persona')
		return `${shown(message.authorName ?? 'persona')}${message.personaId ? ` (persona ${shown(message.personaId)})` : ' (persona)'}`;
	return `${shown(message.authorName ?? 'member')}${message.authorId ? ` (${shown(message.authorId)})` : ''}`;
}

/** `[2026-03-02 18:00:00 UTC] Maya (4829…): hello` */
export function storedLine(message: StoredMessage, indent = '    '): string {
	return `${indent}[${time(message.ts)}] ${speaker(message)}: ${shown(message.text)}`;
}

/** The same for an exported message. */
export function exportedLine(message: ExportedMessage, indent = '    '): string {
	return (
		`${indent}[${time(message.at)}] ` +
		`${speaker({ role: message.role, authorName: message.authorName, personaId: message.personaId ?? undefined })}: ${shown(message.text)}`
	);
}

/** Where a conversation is: `server 8000… channel 8100… persona sol`, or `DM channel 8200…`. */
export function place(where: { serverId: string; channelId: string; personaId?: string | null }): string {
	const server = where.serverId === 'DM' ? 'DM' : `server ${shown(where.serverId)}`;
	return `${server} · channel ${shown(where.channelId)}${where.personaId ? ` · persona ${shown(where.personaId)}` : ''}`;
}
