import { carriesWordsOf } from '../privacy/voices';
import type { StoredMessage } from '../schemas';

/** Who asks about one message: the member, and who wrote it as Discord says (the plugin passes it). */
export interface MessageRequester {
	userId: string;
	authorId?: string;
}

/**
 * Whether the message memory holds as `stored` (null: none) is the member's to have forgotten or kept: their own message, or
 * a persona's reply to their turn (in a DM, that is every message of it), read from what memory stored, never from the
 * request: the channel a host names is not proof that it is the member's DM. A message memory does not hold is the member's
 * when Discord names them its author. `not-yours`: memory holds it and it is someone else's; `not-stored`: memory holds no
 * copy and nothing says the member wrote it.
 */
export function messageOwnership(stored: StoredMessage | null, request: MessageRequester): 'theirs' | 'not-yours' | 'not-stored' {
	if (!stored) return request.authorId === request.userId ? 'theirs' : 'not-stored';
	return carriesWordsOf(stored, request.userId) ? 'theirs' : 'not-yours';
}

/** Who wrote a message memory holds, as the answers to a member say it. */
export function writerOf(stored: StoredMessage | null): 'member' | 'persona' | undefined {
	return stored ? (stored.role === 'persona' ? 'persona' : 'member') : undefined;
}
