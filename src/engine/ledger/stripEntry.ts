import { type ArchiveRevision, removes } from '../archive/reviseArchive';
import { carriesWordsOf } from '../privacy/voices';
import type { DigestLine, ShortTermEntry } from '../schemas';

/** The digest lines all of whose authors `keep` accepts: the others quote or count a FULL or erased member. */
export function linesOfAuthors(lines: readonly DigestLine[], keep: (authorId: string) => boolean): DigestLine[] {
	return lines.filter((line) => (line.authorIds ?? []).every(keep));
}

/** One entry without a member's words, and what that took out of it. */
export interface StrippedEntry {
	/** The entry as it should now be stored; null when nothing of the member was in it. */
	entry: ShortTermEntry | null;
	/** The member's messages taken out of its crude window. */
	removed: number;
	/** Whether a summary went: the background summary citing the member, or any summary on an erasure. */
	summaryDropped: boolean;
}

/**
 * Every copy of `authorId`'s words inside one short-term entry: their messages and the persona's replies
 * to their turns (see voicesOf), the digest lines that quote or count them, the background summary
 * that cites them, and (when `dropSummary`, on an erasure) the tool's summary, which may paraphrase them.
 */
export function stripAuthor(entry: ShortTermEntry, authorId: string, dropSummary: boolean): StrippedEntry {
	const messages = entry.messages.filter((message) => !carriesWordsOf(message, authorId));
	const removed = entry.messages.length - messages.length;
	const toolSummaryDropped = dropSummary && (Boolean(entry.summary) || Object.keys(entry.categories ?? {}).length > 0);
	// A background summary cites its sources: it goes when it drew on the member's words (on erasure, always).
	const { backgroundSummary, ...rest } = entry;
	const ownIds = new Set(entry.messages.flatMap((message) => (carriesWordsOf(message, authorId) ? [message.id] : [])));
	const backgroundDropped =
		Boolean(backgroundSummary) &&
		(dropSummary || backgroundSummary!.authorIds.includes(authorId) || backgroundSummary!.sourceIds.some((id) => ownIds.has(id)));
	const summaryDropped = toolSummaryDropped || backgroundDropped;
	// Digest lines quote the messages they cite: those citing the member's go, as their messages do.
	const digest = linesOfAuthors(entry.digest ?? [], (id) => id !== authorId);
	const linesRemoved = (entry.digest?.length ?? 0) - digest.length;
	if (removed === 0 && linesRemoved === 0 && !summaryDropped) return { entry: null, removed, summaryDropped };
	const next: ShortTermEntry = {
		...(backgroundDropped ? rest : entry),
		messages,
		digest: digest.length > 0 ? digest : null,
		...(toolSummaryDropped ? { summary: null, categories: null } : {})
	};
	return { entry: next, removed, summaryDropped };
}

/** One entry after messages were edited or deleted on Discord, and what that changed in it. */
export interface RevisedEntry {
	/** The entry as it should now be stored; null when it held none of the messages. */
	entry: ShortTermEntry | null;
	/** Messages taken out of its crude window. */
	removed: number;
	/** Messages of its crude window given their new text. */
	edited: number;
	/** Digest lines that went because they quoted or counted a changed message. */
	linesRemoved: number;
	/** Whether its background summary went because it cited a changed message. */
	summaryDropped: boolean;
}

/**
 * Every copy of changed messages inside one entry: a deleted message (with the persona's replies to it) leaves its crude window, an edited
 * one takes its new text there (or leaves it, when the new text is not known); the digest lines and the
 * background summary citing any of them go, so the digest serves until the scope is summarized again.
 * The tool's summary cites nothing and stays.
 */
export function reviseEntry(entry: ShortTermEntry, revision: ArchiveRevision): RevisedEntry {
	// The ids of every message that goes or changes: a deleted message's replies too.
	const ids = new Set([...revision.deleted, ...revision.dropped, ...revision.texts.keys()]);
	for (const message of entry.messages) if (removes(revision, message)) ids.add(message.id);
	const changed = (id: string) => ids.has(id);
	let edited = 0;
	const messages = entry.messages.flatMap((message) => {
		if (removes(revision, message)) return [];
		const text = revision.texts.get(message.id);
		if (text === undefined || text === message.text) return [message];
		edited++;
		return [{ ...message, text }];
	});
	const removed = entry.messages.length - messages.length;
	const digest = (entry.digest ?? []).filter((line) => !line.sourceIds.some(changed));
	const linesRemoved = (entry.digest?.length ?? 0) - digest.length;
	const { backgroundSummary, ...rest } = entry;
	const summaryDropped = Boolean(backgroundSummary?.sourceIds.some(changed));
	if (removed === 0 && edited === 0 && linesRemoved === 0 && !summaryDropped) return { entry: null, removed, edited, linesRemoved, summaryDropped };
	const next: ShortTermEntry = { ...(summaryDropped ? rest : entry), messages, digest: digest.length > 0 ? digest : null };
	return { entry: next, removed, edited, linesRemoved, summaryDropped };
}

/** Whether an entry still holds anything a context could show. */
export function holdsAnything(entry: ShortTermEntry): boolean {
	return entry.messages.length > 0 || Boolean(entry.summary) || Boolean(entry.categories) || Boolean(entry.digest);
}
