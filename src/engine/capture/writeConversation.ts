import { visibilityOf } from '../privacy/visibility';
import { carriesWordsOf } from '../privacy/voices';
import type { MemoryTurn, ShortTermEntry, StoredMessage } from '../schemas';
import { byTime, entryPlace, mergeWindow } from '../ledger/entries';
import type { RecordWrite } from '../records/RecordStore';
import { type ConversationKeys, conversationKeys } from '../records/scopes';
import { foldIntoDigest } from '../summaries/digest/foldIntoDigest';
import type { CaptureParts } from './CaptureParts';
import type { PersonaReplies } from './turnMessages';

/**
 * One persona's part of a turn: the user scope and, outside DMs, the server scope take the history and
 * the replies; what leaves their crude window folds into their digest. In a guild the user scope keeps
 * only the user's own messages and the personas' replies: that is all any context shows of it, and no
 * member's words end up filed under another member. Holding the conversation's locks, the ledger reads what the
 * entries hold, {@link composeEntries} makes them as they should be, and the ledger lands them with the archive, the
 * author index and the directories. Returns the conversation's keys and its entries as written.
 */
export async function writeConversation(
	parts: CaptureParts,
	turn: MemoryTurn,
	persona: PersonaReplies,
	history: readonly StoredMessage[],
	userBarrier: (message: StoredMessage) => boolean,
	now: number,
	/** Records that land with the conversation: what its replies' contexts drew on. */
	alongside: readonly RecordWrite[] = []
): Promise<{ keys: ConversationKeys; entries: ShortTermEntry[] }> {
	const { ledger } = parts;
	const keys = conversationKeys(turn, persona.personaId);
	const turnMessages = [...history, ...persona.messages].sort(byTime);
	const written = await ledger.store.locked(ledger.conversationLocks(keys), async () => {
		const read = await ledger.readConversation(keys, turnMessages, now);
		const entries = await composeEntries(parts, { turn, persona, keys, userBarrier, now }, read.current, read.messages);
		await ledger.landConversation(read, entries, now, alongside);
		return entries;
	});
	const live = written[keys.entryKeys.indexOf(keys.liveKey)];
	if (live) parts.onLiveWrite?.(keys.liveKey, live);
	return { keys, entries: written };
}

/** What one persona's conversation takes from a turn. */
interface ConversationTurn {
	turn: MemoryTurn;
	persona: PersonaReplies;
	keys: ConversationKeys;
	userBarrier: (message: StoredMessage) => boolean;
	now: number;
}

/**
 * The conversation's entries as they should be once they take `messages` (the turn's, less those deleted on Discord), from
 * what they hold (`stored`, the user scope's first): each crude window merged, what leaves it folded into the digest.
 */
async function composeEntries(
	parts: CaptureParts,
	{ turn, persona, keys, userBarrier, now }: ConversationTurn,
	stored: readonly (ShortTermEntry | undefined)[],
	messages: readonly StoredMessage[]
): Promise<ShortTermEntry[]> {
	const { config } = parts;
	const { serverKey, liveKey, entryKeys } = keys;
	const windows = entryKeys.map((key, index) => {
		const current = stored[index];
		const own =
			key === serverKey
				? messages
				: // The user's own scope also drops the personas' replies from before they cleared their memory, and in a
					// guild keeps only their words and the replies to their turns, never a reply to another member.
					messages.filter((message) => userBarrier(message) && (serverKey === null || carriesWordsOf(message, turn.userId)));
		const ids = new Set(current?.messages.map((message) => message.id));
		// A turn recorded again (its responses are all there already) is not another turn, and folds nothing.
		const repeated = persona.messages.every((response) => ids.has(response.id));
		return { key, current, repeated, ...mergeWindow(current?.messages ?? [], own, config.maxMessagesPerChannel) };
	});
	const liveRepeated = windows[entryKeys.indexOf(liveKey)]!.repeated;
	// Never a message of a member who is FULL now, nor one a member wrote before clearing their memory, even if the window still held it.
	const folding = windows.flatMap((window) => (window.evicted.length > 0 ? [...window.evicted, ...window.kept] : []));
	const visibility = await visibilityOf(
		parts.settings,
		folding.flatMap((message) => (message.role === 'user' && message.authorId ? [message.authorId] : [])),
		turn.serverId
	);
	const mayFold = (message: StoredMessage) => message.role !== 'user' || visibility.storable(message.authorId, message.ts);
	return windows.map(
		({ key, current, repeated, kept, evicted }): ShortTermEntry => ({
			scope: key === serverKey ? 'server' : 'user',
			userId: key === serverKey ? null : turn.userId,
			...entryPlace(current, turn),
			personaId: persona.personaId,
			lineageId: persona.lineageId ?? current?.lineageId ?? null,
			messages: kept,
			summary: current?.summary ?? null,
			categories: current?.categories ?? null,
			digest: repeated
				? (current?.digest ?? null)
				: foldIntoDigest(current?.digest, evicted.filter(mayFold), config.maxSummaryLength, kept.filter(mayFold)),
			lastUpdated: now,
			turnsSinceRefresh: (current?.turnsSinceRefresh ?? 0) + (key === liveKey && !liveRepeated ? 1 : 0),
			...(current?.backgroundSummary ? { backgroundSummary: current.backgroundSummary } : {})
		})
	);
}
