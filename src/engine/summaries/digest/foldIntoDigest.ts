import { byTime, chronological } from '../../ledger/entries';
import { voicesOf } from '../../privacy/voices';
import { dayLabel } from '../../format/lines';
import { PersonaNames, speakerName } from '../../format/speakers';
import type { DigestLine, StoredMessage } from '../../schemas';
import { classifyCached, isAnswer } from './classify';
import { count, type Counts, itemLabel, noiseLabel, parseCounts, renderCounts } from './countLines';
import { byWorth } from './information';
import { ANSWER_JOIN, byLine } from './renderDigest';
import { cut, flat } from './text';

/** Characters of a message an event line keeps; a longer one is cut at a word boundary. */
export const DIGEST_TEXT_CHARS = 200;
/** Characters of a short answer shown after its question. */
const MAX_ANSWER_CHARS = 40;
/** Messages a count line takes in from later folds: the digest is rewritten on every turn, so a line's citations stay few. */
const MAX_COUNTED_MESSAGES = 50;

function sameSpeaker(a: StoredMessage, b: StoredMessage): boolean {
	return a.authorId !== undefined || b.authorId !== undefined ? a.authorId === b.authorId : a.authorName === b.authorName && a.role === b.role;
}

/**
 * `Maya: text`, the speaker labelled as context lines label them (a member named like a persona marked) and the text
 * on one line, cut at `limit` characters; an arrow in it is written `->`, so that ` → ` only ever joins a question to
 * its answer.
 */
function said(message: StoredMessage, limit: number, personas: PersonaNames): string {
	return `${speakerName(message, personas)}: ${cut(flat(message.text).replace(/→/g, '->'), limit)}`;
}

/** Whose words the messages carry (a persona reply carries the words of the member it answered), so erasure and privacy find their lines. */
function authorsOf(messages: readonly StoredMessage[]): string[] {
	return [...new Set(messages.flatMap(voicesOf))];
}

/** Characters of the lines joined one per line. */
function size(lines: readonly DigestLine[]): number {
	return lines.reduce((sum, line) => sum + line.text.length, Math.max(0, lines.length - 1));
}

/** The newest message a line cites, by time and id (a line stored before `lastTs` existed gives its first: a bound below). */
function lastCited(line: DigestLine): { ts: number; id: string } {
	return line.lastTs === undefined ? { ts: line.ts, id: line.sourceIds[0] ?? '' } : { ts: line.lastTs, id: line.sourceIds.at(-1) ?? '' };
}

/** The line citing the newest message the digest has folded: whatever is not newer was folded before, or came too late. */
function frontier(lines: readonly DigestLine[]): DigestLine | undefined {
	return lines.reduce<DigestLine | undefined>((found, line) => {
		if (!found) return line;
		const a = lastCited(found);
		const b = lastCited(line);
		return chronological(a.ts, a.id, b.ts, b.id) < 0 ? line : found;
	}, undefined);
}

/** `line` citing `messages` too (newer than any it cites), its text set to `text`. */
function extended(line: DigestLine, messages: readonly StoredMessage[], text = line.text): DigestLine {
	return {
		...line,
		text,
		sourceIds: [...line.sourceIds, ...messages.map((message) => message.id)],
		lastTs: messages.at(-1)!.ts,
		authorIds: [...new Set([...(line.authorIds ?? []), ...authorsOf(messages)])]
	};
}

/** A new line citing `messages`, oldest first. */
function newLine(kind: DigestLine['kind'], text: string, messages: readonly StoredMessage[]): DigestLine {
	return {
		text,
		sourceIds: messages.map((message) => message.id),
		ts: messages[0]!.ts,
		...(messages.length > 1 ? { lastTs: messages.at(-1)!.ts } : {}),
		kind,
		authorIds: authorsOf(messages)
	};
}

/**
 * Folds messages that left a scope's crude window into its digest, without an LLM. Hard events
 * ({@link classify}) become `Speaker: text` lines (cut at about 200 characters at a word boundary); a
 * member's question followed by another speaker's yes, no or number becomes one line with its answer;
 * acknowledgements and small talk are collapsed into count lines, merged with the count line just
 * before them on the same day, and a short reply a count line of the same day already counts joins
 * that line even when other lines stand between (`(7 short replies: sure ×7)`), until it counts
 * {@link MAX_COUNTED_MESSAGES}; an event the same speaker
 * says again right away is cited by its line. Every line cites its messages; every message folded is
 * cited by exactly one line. Messages the digest already cites, or not newer than the newest message
 * it has folded, are skipped, so folding the same messages twice adds nothing. The digest stays in
 * chronological order and within `maxChars` characters (lines joined by newlines): when it holds more,
 * the least informative lines go first ({@link byWorth}), whole, and never the line citing the newest
 * message folded. The same input always gives the same digest.
 *
 * `following` are the messages still in the window, read only to tell whether the last question was answered.
 * @example
 * const digest = foldIntoDigest(entry.digest, evicted, config.maxSummaryLength, kept);
 * // [{ kind: 'event', text: 'Maya: we meet on June 3 at 6pm', sourceIds: ['1'], ts, authorIds: ['42'] },
 * //  { kind: 'collapsed', text: '(3 short replies: ok ×2, lol)', sourceIds: ['2', '3', '4'], ts, lastTs, authorIds: ['42', '77'] }]
 */
export function foldIntoDigest(
	digest: readonly DigestLine[] | null | undefined,
	evicted: readonly StoredMessage[],
	maxChars: number,
	following: readonly StoredMessage[] = []
): DigestLine[] | null {
	const lines = [...(digest ?? [])].sort(byLine);
	const cited = new Set(lines.flatMap((line) => line.sourceIds));
	const stream = [...new Map([...evicted, ...following].map((message) => [message.id, message])).values()].sort(byTime);
	// A digest never reaches back before the newest message it folded: what is older was folded (and may have
	// gone to keep the bound), or came too late.
	const through = frontier(lines);
	const last = through && lastCited(through);
	const isNew = (message: StoredMessage) => !last || chronological(message.ts, message.id, last.ts, last.id) > 0;
	const fresh = new Set(evicted.filter((message) => !cited.has(message.id) && isNew(message)).map((message) => message.id));
	if (fresh.size === 0) return lines.length > 0 ? lines : null;

	const newest = () => lines.reduce<DigestLine | undefined>((found, line) => (!found || byLine(found, line) < 0 ? line : found), undefined);
	const replace = (old: DigestLine, next: DigestLine) => lines.splice(lines.indexOf(old), 1, next);

	const addEvent = (messages: StoredMessage[], text: string) => {
		const previous = newest();
		const repeated = previous?.kind === 'event' && previous.text === text && messages[0]!.ts >= previous.ts ? previous : undefined;
		if (repeated) replace(repeated, extended(repeated, messages));
		else lines.push(newLine('event', text, messages));
	};

	/** The count line of the same day that already counts `label` among its short replies. */
	const countingLine = (message: StoredMessage, label: string) =>
		lines.find(
			(line) =>
				line.kind === 'collapsed' &&
				line.sourceIds.length < MAX_COUNTED_MESSAGES &&
				line.ts <= message.ts &&
				dayLabel(line.ts) === dayLabel(message.ts) &&
				parseCounts(line.text)?.short.items.some(([known]) => known === label)
		);

	let run: StoredMessage[] = [];
	const flushRun = () => {
		// A short reply already counted that day joins its line: one count of `sure` rather than one line per `sure`.
		const rest = run.filter((message) => {
			if (classifyCached(message).kind !== 'noise') return true;
			const label = noiseLabel(message.text);
			const line = countingLine(message, label);
			if (!line) return true;
			const counts = parseCounts(line.text)!;
			count(counts.short, label);
			replace(line, extended(line, [message], renderCounts(counts)));
			return false;
		});
		run = [];
		if (rest.length === 0) return;
		const previous = newest();
		const merged =
			previous?.kind === 'collapsed' &&
			previous.sourceIds.length < MAX_COUNTED_MESSAGES &&
			rest[0]!.ts >= previous.ts &&
			dayLabel(rest[0]!.ts) === dayLabel(previous.ts)
				? parseCounts(previous.text)
				: null;
		const counts = merged ?? { other: { items: [], more: 0 }, short: { items: [], more: 0 } };
		for (const message of rest) {
			if (classifyCached(message).kind === 'noise') count(counts.short, noiseLabel(message.text));
			else count(counts.other, itemLabel(speakerName(message, personas)));
		}
		if (merged && previous) replace(previous, extended(previous, rest, renderCounts(counts)));
		else lines.push(newLine('collapsed', renderCounts(counts), rest));
	};

	// The personas who speak around these messages: a member named like one is marked in the lines, as in a context.
	const personas = PersonaNames.of(stream);
	const answers = new Set<string>();
	stream.forEach((message, index) => {
		if (!fresh.has(message.id) || answers.has(message.id)) return;
		const { kind } = classifyCached(message);
		if (kind === 'event') {
			flushRun();
			addEvent([message], said(message, DIGEST_TEXT_CHARS, personas));
			return;
		}
		const next = stream[index + 1];
		if (kind === 'question' && next && !sameSpeaker(message, next)) {
			const reply = classifyCached(next).kind;
			if (reply !== 'noise' || isAnswer(next)) {
				flushRun();
				// A yes, a no or a number folded with it is shown with the question it settles.
				const withAnswer = reply === 'noise' && fresh.has(next.id);
				if (withAnswer) answers.add(next.id);
				addEvent(
					withAnswer ? [message, next] : [message],
					withAnswer
						? `${said(message, DIGEST_TEXT_CHARS, personas)}${ANSWER_JOIN}${said(next, MAX_ANSWER_CHARS, personas)}`
						: said(message, DIGEST_TEXT_CHARS, personas)
				);
				return;
			}
		}
		run.push(message);
	});
	flushRun();

	for (const [index, line] of lines.entries()) if (line.text.length > maxChars) lines[index] = { ...line, text: cut(line.text, maxChars) };
	return within(lines, maxChars);
}

/**
 * The lines within `maxChars`, in chronological order: the least informative go first, and never the
 * line citing the newest message folded, which tells the next fold where to start.
 */
function within(lines: DigestLine[], maxChars: number): DigestLine[] | null {
	let chars = size(lines);
	if (chars > maxChars) {
		const kept = frontier(lines);
		const gone = new Set<DigestLine>();
		for (const line of byWorth(lines).reverse()) {
			if (chars <= maxChars) break;
			if (line === kept) continue;
			gone.add(line);
			chars -= line.text.length + 1;
		}
		lines = lines.filter((line) => !gone.has(line));
	}
	lines.sort(byLine);
	return lines.length > 0 ? lines : null;
}
