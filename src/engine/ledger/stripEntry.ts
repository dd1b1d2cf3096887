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
 * Every copy of `authorId`'s words inside one short-term entry: their messages, the digest lines that
 * quote or count them, the background summary that cites them, and (when `dropSummary`, on an erasure)
 * the tool's summary, which may paraphrase them.
 */
export function stripAuthor(entry: ShortTermEntry, authorId: string, dropSummary: boolean): StrippedEntry {
	const messages = entry.messages.filter((message) => message.authorId !== authorId);
	const removed = entry.messages.length - messages.length;
	const toolSummaryDropped = dropSummary && (Boolean(entry.summary) || Object.keys(entry.categories ?? {}).length > 0);
	// A background summary cites its sources: it goes when it drew on the member's words (on erasure, always).
	const { backgroundSummary, ...rest } = entry;
	const ownIds = new Set(entry.messages.flatMap((message) => (message.authorId === authorId ? [message.id] : [])));
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

/** Whether an entry still holds anything a context could show. */
export function holdsAnything(entry: ShortTermEntry): boolean {
	return entry.messages.length > 0 || Boolean(entry.summary) || Boolean(entry.categories) || Boolean(entry.digest);
}
