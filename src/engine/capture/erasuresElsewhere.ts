import { AUTHOR_FLUSH_MS } from '../ledger/AuthorIndex';
import type { MemberForgetting } from '../ledger/forgetMember';
import { forgottenBefore } from '../privacy/visibility';
import { voicesOf } from '../privacy/voices';
import { PrivacyLevel, type ShortTermEntry, type StoredMessage, type UserSettings } from '../schemas';
import type { CaptureParts } from './CaptureParts';

/** What one capture stored: the live scopes it wrote, its entries as written, and the turn's messages. */
export interface CapturedTurn {
	liveKeys: readonly string[];
	entries: readonly ShortTermEntry[];
	messages: readonly StoredMessage[];
}

/**
 * How long after a member's erasure another process may still be running it, and may have removed an author
 * listing this process remembers having written (the author index writes a known listing again only after that long).
 */
const ERASURE_RUNNING_MS = AUTHOR_FLUSH_MS;

/**
 * After a turn has landed: a member whose words it stored, and who was erased meanwhile in another process, is
 * forgotten again, so shard processes forget as completely as one.
 *
 * Capture reads settings through a cache of a few seconds, and another shard process may erase a member meanwhile: its
 * erasure sets the member's barrier, then removes their words, while this process, still going by the old settings (or
 * by an entry it read just before the erasure took the words out of it), writes them back. Read again once the turn is
 * stored, the barrier is either not set yet (that erasure has not started, and will find what this turn wrote) or it
 * is, and what this turn stored says whether it brought anything back. One read of a few settings per turn.
 */
export async function forgetWhatErasuresMissed(parts: CaptureParts, turn: CapturedTurn, now: number): Promise<void> {
	const stored = wordsStored(turn);
	const memberIds = [...stored.keys()];
	const fresh = await parts.settings.manyUsersFresh(memberIds);
	for (const [index, userId] of memberIds.entries()) {
		const settings = fresh[index]!;
		const barrier = forgottenBefore(settings);
		if (barrier === Number.NEGATIVE_INFINITY) continue;
		const words = stored.get(userId)!;
		// The erasure may have taken out a listing this process skips writing again for a while: written now, so the next erasure finds it.
		if (words.authoredIn.size > 0 && now - barrier < ERASURE_RUNNING_MS)
			await parts.ledger.authors.confirm(userId, [...words.authoredIn], words.newestAuthored, now);
		const what = missed(settings, words);
		if (what) await parts.forgetAgain(userId, what, now);
	}
}

/** Where a member's words are in what a turn stored. */
interface StoredWords {
	/** The oldest time of their words in the short-term entries (their messages, the replies to them, a background summary of them). */
	inEntries: number;
	/** The oldest time of their words among the turn's messages, which the archive took in too. */
	inTurn: number;
	/** The live scopes where messages they wrote landed, which their author index lists. */
	authoredIn: Set<string>;
	/** The newest time of those messages. */
	newestAuthored: number;
}

function wordsStored(turn: CapturedTurn): Map<string, StoredWords> {
	const stored = new Map<string, StoredWords>();
	const of = (userId: string) => {
		let words = stored.get(userId);
		if (!words) stored.set(userId, (words = { inEntries: Infinity, inTurn: Infinity, authoredIn: new Set(), newestAuthored: -Infinity }));
		return words;
	};
	for (const entry of turn.entries) {
		for (const message of entry.messages) for (const id of voicesOf(message)) of(id).inEntries = Math.min(of(id).inEntries, message.ts);
		for (const id of entry.backgroundSummary?.authorIds ?? []) of(id).inEntries = Math.min(of(id).inEntries, entry.backgroundSummary!.createdAt);
		// A digest line cites them too, but its time is its first message's, not theirs: it counts for a member who chose FULL.
		for (const line of entry.digest ?? []) for (const id of line.authorIds ?? []) of(id);
	}
	for (const message of turn.messages) {
		for (const id of voicesOf(message)) {
			of(id).inTurn = Math.min(of(id).inTurn, message.ts);
			if (message.role !== 'user') continue;
			for (const key of turn.liveKeys) of(id).authoredIn.add(key);
			of(id).newestAuthored = Math.max(of(id).newestAuthored, message.ts);
		}
	}
	return stored;
}

/**
 * What an erasure this capture did not see asks to forget again, if anything: everything when the turn stored words of
 * the member from before they were erased (or left FULL), or any words of a member who chose FULL since (choosing FULL
 * erases, and sets the erasure's barrier: settings that merely read as FULL, a damaged row failing safe, have none, and
 * erase nothing); their short-term memory when the entries hold words from before they cleared it. Words from after the
 * barrier are theirs to keep: a capture that ran with settings from before the erasure stores nothing else wrongly.
 */
function missed(now: UserSettings, words: StoredWords): MemberForgetting | null {
	const erased = Math.max(now.erasedBefore ?? -Infinity, now.fullUntil ?? -Infinity);
	if (now.privacyLevel === PrivacyLevel.FULL && now.erasedBefore !== undefined) return 'everything';
	if (Math.min(words.inEntries, words.inTurn) <= erased) return 'everything';
	return words.inEntries <= (now.clearedBefore ?? -Infinity) ? 'short-term' : null;
}
