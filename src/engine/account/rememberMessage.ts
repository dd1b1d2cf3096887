import { collapsedText } from '../format/cleanText';
import { PrivacyLevel, type RememberMessageRequest, type RememberMessageResult, type StoredMessage } from '../schemas';
import type { AccountParts } from './AccountParts';
import { LongTermLimits } from './longTerm';
import { messageOwnership } from './messageOwner';
import { updateProfile } from './profile';

/**
 * Keeps one message's text as a note of the member's profile (Remember this): only a MINIMAL member keeps one, and only of
 * their own message or a persona's reply to them (see messageOwner.ts); the text is Discord's when given, else the copy
 * memory stored, made one line and cut to a note's length.
 */
export async function rememberMessage(
	parts: AccountParts,
	request: RememberMessageRequest,
	stored: StoredMessage | null,
	now: number
): Promise<RememberMessageResult> {
	const { privacyLevel } = await parts.settings.user(request.userId);
	if (privacyLevel !== PrivacyLevel.MINIMAL) return { outcome: 'not-minimal', privacyLevel };
	const ownership = messageOwnership(stored, request);
	if (ownership !== 'theirs') return { outcome: ownership };
	const text = request.text ?? stored?.text;
	if (text === undefined) return { outcome: 'not-stored' };
	const note = noteOf(text);
	if (note.length === 0) return { outcome: 'empty' };
	await updateProfile(parts, request.userId, { notes: [note] }, now);
	return { outcome: 'remembered', note };
}

/** `text` as a note: one line, cut to a note's length with "…". */
function noteOf(text: string): string {
	const line = collapsedText(text);
	const limit = LongTermLimits.noteChars;
	// Never between the two halves of a surrogate pair (an emoji).
	return line.length <= limit ? line : `${line.slice(0, limit - 1).replace(/[\uD800-\uDBFF]$/, '')}…`;
}
