import type { StoredMessage } from '../../src/engine';

/** The persona of the digest tests, as a speaker of stored messages. */
export const SOL = { id: 'sol', name: 'Sol' };

/** Stored messages one minute apart from `start`, with ids m01, m02, … in that order; Sol's are the persona's. */
export function storedConversation(start: number, ...lines: [who: { id: string; name: string }, text: string][]): StoredMessage[] {
	return lines.map(([who, text], index) => ({
		id: `m${String(index + 1).padStart(2, '0')}`,
		role: who === SOL ? 'persona' : 'user',
		authorId: who.id,
		authorName: who.name,
		text,
		ts: start + index * 60_000
	}));
}
