import { visibilityFrom } from '../privacy/visibility';
import { type MemoryTurn, PrivacyLevel, type RecordTurnResult, type ShortTermEntry, type SkipReason } from '../schemas';
import type { CaptureParts } from './CaptureParts';
import { historyMessages, recentHistory, repliesByPersona, responseMessage } from './turnMessages';
import { forgetWhatErasuresMissed } from './erasuresElsewhere';
import { writeConversation } from './writeConversation';
import { sourceRecords } from './sourceRecords';

/** Records one finished turn as docs/design.md's Capture section says. The turn is already validated. */
export async function recordTurn(parts: CaptureParts, given: MemoryTurn, now: number): Promise<RecordTurnResult> {
	const at = given.timestamp ?? now;
	const turn = { ...given, history: recentHistory(given.history, at) };
	const skip = (reason: SkipReason): RecordTurnResult => {
		parts.onSkip(reason);
		return { written: false, skippedReason: reason, keys: [] };
	};
	if (turn.isStopResponse) return skip('stop-response');

	const others = turn.history.flatMap((entry) =>
		(entry.role === 'user' || entry.role === 'persona') && entry.authorId && entry.authorId !== turn.userId ? [entry.authorId] : []
	);
	const memberIds = [turn.userId, ...new Set(others)];
	const [requester, ...authors] = await parts.settings.manyUsers(memberIds);
	// The level the host passed wins over the stored one.
	const level = turn.privacyLevel ?? requester!.privacyLevel;
	if (level === PrivacyLevel.FULL) {
		// Its replies may repeat what the member said: a later turn's history must not bring them in either.
		const replies = turn.responses.flatMap(
			(response, index) => responseMessage(response, now + index, turn.timestamp, { messageId: undefined, authorId: turn.userId }) ?? []
		);
		if (replies.length > 0) await parts.ledger.forgetReplies(turn, replies, now);
		return skip('privacy-full');
	}

	const visibility = visibilityFrom(memberIds, [{ ...requester!, privacyLevel: level }, ...authors], turn.serverId);
	const history = historyMessages(turn, visibility, at);
	if (history.length === 0) return skip('empty-history');
	const replies = repliesByPersona(turn, history, at);
	if (replies.length === 0) return skip('no-response');

	const keys: string[] = [];
	const liveKeys: string[] = [];
	const entries: ShortTermEntry[] = [];
	for (const persona of replies) {
		// Nothing older than the user's last clear goes back into their own scope.
		const userBarrier = (message: { ts: number }) => visibility.storable(turn.userId, message.ts);
		// What the replies' contexts drew on lands with them.
		const sources = parts.sources.records.writes(turn.userId, sourceRecords(parts, turn, persona, visibility, now));
		const written = await writeConversation(parts, turn, persona, history, userBarrier, now, sources);
		keys.push(...written.keys.entryKeys);
		liveKeys.push(written.keys.liveKey);
		entries.push(...written.entries);
	}
	const messages = [...history, ...replies.flatMap((persona) => persona.messages)];
	await forgetWhatErasuresMissed(parts, { liveKeys, entries, messages }, now);
	return { written: true, keys };
}
