import type { ForgetMessageRequest, ForgetMessageResult, MessagesChangeResult, StoredMessage } from '../schemas';

/** What a refused request changed. */
export const NOTHING_CHANGED: Readonly<MessagesChangeResult> = Object.freeze({
	entriesChanged: 0,
	messagesRemoved: 0,
	messagesEdited: 0,
	archivedMessagesRemoved: 0,
	archivedMessagesEdited: 0,
	digestLinesRemoved: 0,
	summariesDropped: 0
});

/**
 * Whether `request`'s member may have memory forget the message memory holds as `stored` (null: none): a moderator any
 * message; in a DM, every message of it (the conversation is the member's); elsewhere a member's own message, or a
 * persona's reply to their turn. A message memory does not hold may be forgotten by its author, so no later turn stores it.
 */
export function forgetting(stored: StoredMessage | null, request: ForgetMessageRequest): Exclude<ForgetMessageResult['outcome'], 'forgotten'> | null {
	if (request.moderator === true || request.serverId === null) return null;
	if (!stored) return request.authorId === request.userId ? null : 'not-stored';
	const answersThem = stored.role === 'persona' && stored.replyToAuthorId === request.userId;
	return stored.authorId === request.userId || answersThem ? null : 'not-yours';
}
