import { messageOwnership } from './messageOwner';
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
 * Why `request`'s member may not have memory forget the message it holds as `stored` (see messageOwner.ts), or null: a
 * moderator may any message of their server (a DM has no moderator).
 */
export function forgetting(stored: StoredMessage | null, request: ForgetMessageRequest): Exclude<ForgetMessageResult['outcome'], 'forgotten'> | null {
	if (request.moderator === true && request.serverId !== null) return null;
	const ownership = messageOwnership(stored, request);
	return ownership === 'theirs' ? null : ownership;
}
