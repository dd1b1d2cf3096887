import type { Visibility } from '../privacy/visibility';
import { type MemoryTurn, RECORDED_HISTORY_MESSAGES, type StoredMessage, type TurnMessage, type TurnResponse } from '../schemas';
import { cleanText, clip, contentId } from '../format/cleanText';

/**
 * The user and persona messages of a turn's history capture reads: the newest {@link RECORDED_HISTORY_MESSAGES}, in the
 * order given. A message without a time has the turn's (`at`); of two of one time, the later one given is the newer.
 */
export function recentHistory(history: readonly TurnMessage[], at: number): TurnMessage[] {
	const spoken = history.filter((entry) => entry.role === 'user' || entry.role === 'persona');
	if (spoken.length <= RECORDED_HISTORY_MESSAGES) return spoken;
	const newest = spoken
		.map((entry, index) => ({ index, ts: entry.timestamp ?? at }))
		.sort((a, b) => b.ts - a.ts || b.index - a.index)
		.slice(0, RECORDED_HISTORY_MESSAGES)
		.map(({ index }) => index)
		.sort((a, b) => a - b);
	return newest.map((index) => spoken[index]!);
}

/**
 * The turn's history as it may be stored: user and persona messages only, cleaned and cut, without
 * a FULL member's words or what a member wrote before they last cleared, erased or left FULL.
 */
export function historyMessages(turn: MemoryTurn, visibility: Visibility, at: number): StoredMessage[] {
	const history: StoredMessage[] = [];
	for (const entry of turn.history) {
		if (entry.role !== 'user' && entry.role !== 'persona') continue;
		// In a DM every member message is the user's, even where the host named no author.
		const authorId = entry.authorId ?? (turn.serverId === null && entry.role === 'user' ? turn.userId : undefined);
		const ts = entry.timestamp ?? at;
		if (!visibility.storable(authorId, ts)) continue;
		const text = clip(cleanText(entry.text));
		if (text.length === 0) continue;
		history.push({
			id: entry.messageId ?? contentId([entry.role, entry.authorId, text, entry.timestamp]),
			role: entry.role,
			authorId,
			authorName: entry.authorName ?? (authorId === turn.userId ? turn.userName : undefined),
			text,
			ts
		});
	}
	return history;
}

/** The member message a turn answers: the requester's newest in its history. */
export interface TurnTrigger {
	messageId: string | undefined;
	authorId: string;
}

/** The turn's trigger: the newest message of the member who asked (a DM's member messages are all theirs). */
export function turnTrigger(turn: MemoryTurn, history: readonly StoredMessage[]): TurnTrigger {
	const asked = history.findLast((message) => message.role === 'user' && message.authorId === turn.userId);
	return { messageId: asked?.id, authorId: turn.userId };
}

/** One persona reply as it is stored, with the turn it answered; null when nothing is left of its text. */
export function responseMessage(response: TurnResponse, ts: number, turnTime: number | undefined, trigger: TurnTrigger): StoredMessage | null {
	const text = clip(cleanText(response.text));
	if (text.length === 0) return null;
	const personaId = response.personaId ?? undefined;
	return {
		id: response.messageId ?? contentId(['persona', personaId, text, turnTime]),
		role: 'persona',
		authorId: personaId,
		authorName: response.personaName,
		text,
		ts,
		personaId,
		...(trigger.messageId === undefined ? {} : { replyTo: trigger.messageId }),
		replyToAuthorId: trigger.authorId
	};
}

/** One responding persona's part of a turn. */
export interface PersonaReplies {
	personaId: string | null;
	lineageId: string | null;
	messages: StoredMessage[];
}

/** The turn's replies grouped by persona; responses follow the history they answer, a millisecond apart, so every reader orders them alike. */
export function repliesByPersona(turn: MemoryTurn, history: readonly StoredMessage[], at: number): PersonaReplies[] {
	const responseTime = Math.max(at, ...history.map((message) => message.ts)) + 1;
	const trigger = turnTrigger(turn, history);
	const groups = new Map<string | null, PersonaReplies>();
	for (const [index, response] of turn.responses.entries()) {
		const message = responseMessage(response, responseTime + index, turn.timestamp, trigger);
		if (!message) continue;
		const personaId = response.personaId ?? null;
		const group = groups.get(personaId) ?? { personaId, lineageId: response.personaLineageId ?? null, messages: [] };
		group.messages.push(message);
		groups.set(personaId, group);
	}
	return [...groups.values()];
}
