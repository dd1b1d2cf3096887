import { createHash } from 'node:crypto';
import type { StoredMessage } from '../schemas';

/**
 * The members whose words a message carries: its author, and for a persona reply the member whose turn
 * it answered, since a reply often repeats what it answers ("Maya, you told me your dog is Biscuit").
 * Erasure, export, the digest's authors and what a member's own conversation keeps all ask this.
 */
export function voicesOf(message: Pick<StoredMessage, 'role' | 'authorId' | 'replyToAuthorId'>): string[] {
	const voices = message.authorId ? [message.authorId] : [];
	if (message.role === 'persona' && message.replyToAuthorId && message.replyToAuthorId !== message.authorId) voices.push(message.replyToAuthorId);
	return voices;
}

/**
 * The members whose words a message of a live scope counts as, for the author index: a member's own message; in a DM
 * (a member's own live scope, `dmOwnerId` that member), every persona line too, since all of a DM is that member's
 * (export and erasure take it whole); elsewhere, a persona's reply as the words of the member whose turn it answered, so
 * the scope stays listed for their erasure while the archive holds the reply, even once their own message there is gone.
 */
export function indexedAuthorsOf(dmOwnerId: string | null, message: Pick<StoredMessage, 'role' | 'authorId' | 'replyToAuthorId'>): string[] {
	if (message.role === 'user') return message.authorId ? [message.authorId] : [];
	if (dmOwnerId !== null) return [dmOwnerId];
	return message.replyToAuthorId ? [message.replyToAuthorId] : [];
}

/** Whether a message carries `userId`'s words: theirs, or a persona's reply to their turn. */
export function carriesWordsOf(message: Pick<StoredMessage, 'role' | 'authorId' | 'replyToAuthorId'>, userId: string): boolean {
	return message.authorId === userId || (message.role === 'persona' && message.replyToAuthorId === userId);
}

/**
 * A persona reply the host gave no message id gets a content hash (`h:…`) that differs between its own turn
 * and a later history (their times differ): such a reply is forgotten by its text too, under this key.
 */
export function replyFingerprint(message: Pick<StoredMessage, 'role' | 'id' | 'text'>): string | null {
	if (message.role !== 'persona' || !message.id.startsWith('h:')) return null;
	return `~${createHash('sha1').update(message.text).digest('base64url').slice(0, 16)}`;
}
