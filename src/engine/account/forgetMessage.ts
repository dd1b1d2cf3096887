import { messageOwnership } from './messageOwner';
import type { ForgetMessageRequest, ForgetMessageResult, StoredMessage } from '../schemas';

/**
 * Why `request`'s member may not have memory forget the message it holds as `stored` (see messageOwner.ts), or null: a
 * moderator may any message of their server (a DM has no moderator).
 */
export function forgetting(stored: StoredMessage | null, request: ForgetMessageRequest): Exclude<ForgetMessageResult['outcome'], 'forgotten'> | null {
	if (request.moderator === true && request.serverId !== null) return null;
	const ownership = messageOwnership(stored, request);
	return ownership === 'theirs' ? null : ownership;
}
