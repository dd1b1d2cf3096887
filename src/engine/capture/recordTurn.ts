import type { Archive } from '../archive/Archive';
import type { AuthorIndex } from '../ledger/AuthorIndex';
import type { MemoryConfig } from '../config';
import { foldIntoDigest } from '../summaries/digest';
import { byTime, entryLifetimeMs, isExpired, mergeWindow } from '../ledger/entries';
import { DM_SERVER_ID, Keys } from '../store/keys';
import type { ScopeDirectory } from '../ledger/ScopeDirectory';
import { forgottenBefore, type SettingsRepository } from '../privacy/SettingsRepository';
import type { MemoryStore } from '../store/MemoryStore';
import { cleanText, contentId } from './cleanText';
import {
	type MemoryTurn,
	PrivacyLevel,
	type RecordTurnResult,
	type ShortTermEntry,
	type SkipReason,
	type StoredMessage,
	type TurnResponse
} from '../schemas/types';
import { MAX_MESSAGE_CHARS } from '../schemas/validation';

/** What capture needs from the engine. */
export interface CaptureDependencies {
	store: MemoryStore;
	archive: Archive;
	settings: SettingsRepository;
	directory: ScopeDirectory;
	authors: AuthorIndex;
	config: () => MemoryConfig;
	onSkip: (reason: SkipReason) => void;
	/** Told of the live scope's entry once it is written (the background summarizer queues from it). */
	onLiveWrite?: (key: string, entry: ShortTermEntry) => void;
}

function clip(text: string): string {
	if (text.length <= MAX_MESSAGE_CHARS) return text;
	// Never between the two halves of a surrogate pair (an emoji), which would store broken UTF-16.
	const end = /[\uD800-\uDBFF]/.test(text[MAX_MESSAGE_CHARS - 2]!) ? MAX_MESSAGE_CHARS - 2 : MAX_MESSAGE_CHARS - 1;
	return `${text.slice(0, end)}…`;
}

/** Records one finished turn as DESIGN.md's Capture section says. The turn is already validated. */
export async function recordTurn(deps: CaptureDependencies, turn: MemoryTurn, now: number): Promise<RecordTurnResult> {
	const skip = (reason: SkipReason): RecordTurnResult => {
		deps.onSkip(reason);
		return { written: false, skippedReason: reason, keys: [] };
	};
	if (turn.isStopResponse) return skip('stop-response');

	const at = turn.timestamp ?? now;
	const candidates = turn.history.filter((entry) => entry.role === 'user' || entry.role === 'persona');
	const authorIds = [...new Set(candidates.flatMap((entry) => (entry.authorId && entry.authorId !== turn.userId ? [entry.authorId] : [])))];
	const [requester, ...authors] = await deps.settings.manyUsers([turn.userId, ...authorIds]);
	const triggeringLevel = turn.privacyLevel ?? requester!.privacyLevel;
	if (triggeringLevel === PrivacyLevel.FULL) return skip('privacy-full');

	const invisible = new Set(authorIds.filter((_, index) => authors[index]!.privacyLevel === PrivacyLevel.FULL));
	// Members who cleared or erased their memory: what they wrote until then is never stored again.
	const forgotten = new Map([turn.userId, ...authorIds].map((id, index) => [id, forgottenBefore(index === 0 ? requester! : authors[index - 1]!)]));
	const history: StoredMessage[] = [];
	for (const entry of candidates) {
		// In a DM every member message is the user's, even where the host named no author.
		const authorId = entry.authorId ?? (turn.serverId === null && entry.role === 'user' ? turn.userId : undefined);
		if (authorId && invisible.has(authorId)) continue;
		const ts = entry.timestamp ?? at;
		if (authorId && ts <= (forgotten.get(authorId) ?? Number.NEGATIVE_INFINITY)) continue;
		const text = clip(cleanText(entry.text));
		if (text.length === 0) continue;
		history.push({
			id: entry.messageId ?? contentId([entry.role, entry.authorId, text, entry.timestamp]),
			role: entry.role as StoredMessage['role'],
			authorId,
			authorName: entry.authorName ?? (authorId === turn.userId ? turn.userName : undefined),
			text,
			ts
		});
	}
	if (history.length === 0) return skip('empty-history');

	// Responses follow the history they answer, a millisecond apart, so every reader orders them alike.
	const responseTime = Math.max(at, ...history.map((message) => message.ts)) + 1;
	const groups = new Map<string | null, { lineageId: string | null; messages: StoredMessage[] }>();
	for (const [index, response] of turn.responses.entries()) {
		const message = responseMessage(response, responseTime + index, turn.timestamp);
		if (!message) continue;
		const personaId = response.personaId ?? null;
		const group = groups.get(personaId) ?? { lineageId: response.personaLineageId ?? null, messages: [] };
		group.messages.push(message);
		groups.set(personaId, group);
	}
	if (groups.size === 0) return skip('no-response');

	const keys: string[] = [];
	for (const [personaId, group] of groups) {
		const barrier = forgotten.get(turn.userId) ?? Number.NEGATIVE_INFINITY;
		keys.push(
			...(await writeScopes(deps, turn, personaId, group.lineageId, [...history, ...group.messages].sort(byTime), group.messages, barrier, now))
		);
	}
	return { written: true, keys };
}

function responseMessage(response: TurnResponse, ts: number, turnTime: number | undefined): StoredMessage | null {
	const text = clip(cleanText(response.text));
	if (text.length === 0) return null;
	const personaId = response.personaId ?? undefined;
	return {
		id: response.messageId ?? contentId(['persona', personaId, text, turnTime]),
		role: 'persona',
		authorId: personaId,
		authorName: response.personaName,
		text,
		ts,
		personaId
	};
}

/**
 * One persona's write: the user scope, the server scope outside DMs, the live scope's archive.
 * In a guild the user scope keeps only the user's own messages and the personas' replies: that is
 * all any context shows of it, and no member's words end up filed under another member.
 * `userBarrier` is when the user last cleared their memory: nothing older goes back into their scope.
 */
async function writeScopes(
	deps: CaptureDependencies,
	turn: MemoryTurn,
	personaId: string | null,
	lineageId: string | null,
	messages: StoredMessage[],
	responses: readonly StoredMessage[],
	userBarrier: number,
	now: number
): Promise<string[]> {
	const config = deps.config();
	const userKey = Keys.userScope(turn.userId, turn.channelId, personaId);
	const serverKey = turn.serverId === null ? null : Keys.serverScope(turn.serverId, turn.channelId, personaId);
	const liveKey = serverKey ?? userKey;
	const keys = serverKey ? [userKey, serverKey] : [userKey];

	const written = await deps.store.lock.runAll([...keys, Keys.archiveHead(liveKey)], async () => {
		// One round trip: the entries, the archive's head and the markers of these messages.
		const archiveKeys = deps.archive.keysToRead(liveKey, messages, now);
		const read = await deps.store.getMany<unknown>([...keys, ...archiveKeys]);
		const stored = read.slice(0, keys.length) as (ShortTermEntry | undefined)[];
		const windows = keys.map((key, index) => {
			const previous = stored[index];
			const current = previous && !isExpired(previous, config, now) ? previous : undefined;
			const own =
				key === serverKey
					? messages
					: // The user's own scope also drops the personas' replies from before they cleared their memory.
						messages.filter(
							(message) =>
								message.ts > userBarrier && (serverKey === null || message.role === 'persona' || message.authorId === turn.userId)
						);
			const ids = new Set(current?.messages.map((message) => message.id));
			// A turn recorded again (its responses are all there already) is not another turn, and folds nothing.
			return {
				key,
				current,
				ids,
				repeated: responses.every((response) => ids.has(response.id)),
				...mergeWindow(current?.messages ?? [], own, config.maxMessagesPerChannel)
			};
		});
		const repeated = windows[keys.indexOf(liveKey)]!.repeated;
		const mayFold = await foldable(
			deps,
			windows.flatMap((window) => (window.evicted.length > 0 ? [...window.evicted, ...window.kept] : []))
		);
		let landed: StoredMessage[] = [];
		const entries = windows.map(({ key, current, ids, repeated: again, kept, evicted }) => {
			if (key === liveKey) landed = messages.filter((message) => !ids.has(message.id));
			const entry: ShortTermEntry = {
				scope: key === serverKey ? 'server' : 'user',
				userId: key === serverKey ? null : turn.userId,
				serverId: turn.serverId ?? DM_SERVER_ID,
				channelId: turn.channelId,
				parentChannelId: turn.parentChannelId ?? null,
				personaId,
				lineageId: lineageId ?? current?.lineageId ?? null,
				messages: kept,
				summary: current?.summary ?? null,
				categories: current?.categories ?? null,
				digest: again
					? (current?.digest ?? null)
					: foldIntoDigest(current?.digest, evicted.filter(mayFold), config.maxSummaryLength, kept.filter(mayFold)),
				lastUpdated: now,
				turnsSinceRefresh: (current?.turnsSinceRefresh ?? 0) + (key === liveKey && !repeated ? 1 : 0),
				...(current?.backgroundSummary ? { backgroundSummary: current.backgroundSummary } : {})
			};
			return { key, entry };
		});
		// Indexes before what they index, so a process killed between two writes leaves at worst a listing of
		// nothing (read as nothing, swept later), never an entry or message that status, export and erasure miss.
		// Inside the scope's lock, so an erasure of this scope never runs between a write and its listing.
		const archive = await deps.archive.prepare(liveKey, messages, now, archiveKeys.length > 0 ? read.slice(keys.length) : undefined);
		await deps.authors.record(liveKey, landed, archive.fresh, now);
		// An entry that was in the store keeps its listing while this process's last write of it still covers it.
		await deps.directory.track(entries, now, { steady: new Set(windows.flatMap(({ key, current }) => (current ? [key] : []))) });
		await archive.register();
		// The entries and the archive land in one batch: all of the turn or none of it.
		await deps.store.setMany([
			...entries.map(({ key, entry }) => ({ key, value: entry, ttlMs: entryLifetimeMs(entry, config) })),
			...archive.writes
		]);
		archive.landed();
		return entries;
	});

	const live = written.find(({ key }) => key === liveKey);
	if (live) deps.onLiveWrite?.(live.key, live.entry);
	return keys;
}

/**
 * Which messages may be folded into a digest: never one of a member who is FULL now, nor one a
 * member wrote before clearing their memory, even if the crude window still held it.
 */
async function foldable(deps: CaptureDependencies, messages: readonly StoredMessage[]): Promise<(message: StoredMessage) => boolean> {
	const authorIds = [...new Set(messages.flatMap((message) => (message.role === 'user' && message.authorId ? [message.authorId] : [])))];
	const settings = await deps.settings.manyUsers(authorIds);
	const hiddenUntil = new Map(
		authorIds.map((id, at) => [id, settings[at]!.privacyLevel === PrivacyLevel.FULL ? Number.POSITIVE_INFINITY : forgottenBefore(settings[at]!)])
	);
	return (message) =>
		!(message.role === 'user' && message.authorId && message.ts <= (hiddenUntil.get(message.authorId) ?? Number.NEGATIVE_INFINITY));
}
