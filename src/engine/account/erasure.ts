import type { MemberErasure } from '../ledger/forgetMember';
import type { ClearAllResult, ClearShortTermResult } from '../schemas';
import { Records } from '../records/Records';
import type { AccountParts } from './AccountParts';
import { eraseLongTerm } from './longTerm';

/**
 * `/session clear`: deletes the member's own short-term entries and removes their messages from the
 * shared channel memories that held them. From now on capture never stores again a message of theirs
 * written before this moment, so the history a bot re-fetches on the next turn does not undo it.
 */
export async function clearShortTerm(parts: AccountParts, userId: string, now: number): Promise<ClearShortTermResult> {
	await parts.settings.setBarrier(userId, 'clearedBefore', now);
	// A turn captured before the barrier was set may still be writing: erase after it.
	await parts.settled();
	return parts.ledger.forgetMember(userId, 'short-term', now);
}

/**
 * `/session clear all`: erases everything of the member from every copy the ledger knows (their own
 * entries and DM archives whole; their messages, and the digest lines and summaries built from them,
 * from every shared entry and archive, whose markers stay as tombstones so the messages are never
 * archived again), then their profile and topics; and capture never stores again a message of theirs
 * written before this moment. Other members' messages stay.
 */
export async function clearAll(parts: AccountParts, userId: string, now: number): Promise<ClearAllResult> {
	await parts.settings.setBarrier(userId, 'erasedBefore', now);
	await parts.settled();
	const erased = await parts.ledger.forgetMember(userId, 'everything', now);
	const longTerm = await eraseLongTerm(parts.store, userId);
	return { ...erased, ...longTerm };
}

/**
 * A member left a server (the plugin calls this with `MEMORY_FORGET_MEMBERS_WHO_LEAVE` on): what memory holds of them
 * there goes, as {@link clearAll} would take it but in that server alone, and capture never stores again what they
 * wrote there before leaving. Their DMs, other servers, profile and topics stay. A member memory holds nothing of
 * (no settings, no directory, no author index) is not recorded at all: null.
 */
export async function forgetMemberIn(parts: AccountParts, userId: string, serverId: string, now: number): Promise<MemberErasure | null> {
	const known = await parts.store.getMany<unknown>([Records.userSettings(userId), Records.userDirectory(userId), Records.authors(userId)]);
	if (known.every((value) => value === undefined)) return null;
	await parts.settings.setLeftServer(userId, serverId, now);
	await parts.settled();
	return parts.ledger.forgetMemberIn(userId, serverId, now);
}
