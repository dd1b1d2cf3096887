import { byTime } from '../../ledger/entries';
import { voicesOf } from '../../privacy/voices';
import { dayLabel } from '../../format/lines';
import { PersonaNames, speakerName } from '../../format/speakers';
import type { DigestLine, StoredMessage } from '../../schemas';
import { classifyCached, isAnswer } from './classify';
import { count, type Counts, itemLabel, noiseLabel, parseCounts, renderCounts } from './countLines';
import { cut, flat } from './text';

/** Characters of a message an event line keeps; a longer one is cut at a word boundary. */
export const DIGEST_TEXT_CHARS = 200;
/** Characters of a short answer shown after its question. */
const MAX_ANSWER_CHARS = 40;

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

/** Chronological; the first source id breaks ties, so the order is the same everywhere. */
function byLine(a: DigestLine, b: DigestLine): number {
	const first = a.sourceIds[0] ?? '';
	const second = b.sourceIds[0] ?? '';
	return a.ts - b.ts || (first < second ? -1 : first > second ? 1 : 0);
}

/** Characters of the lines joined one per line. */
function size(lines: readonly DigestLine[]): number {
	return lines.reduce((sum, line) => sum + line.text.length, Math.max(0, lines.length - 1));
}

/**
 * Folds messages that left a scope's crude window into its digest, without an LLM. Hard events
 * ({@link classify}) become `Speaker: text` lines (cut at about 200 characters at a word boundary); a
 * member's question followed by another speaker's yes or no becomes one line with its answer;
 * acknowledgements and small talk are collapsed into count lines, merged with the count line just
 * before them on the same day; an event the same speaker says again right away is cited by its line.
 * Every line cites its messages; every message folded is cited by exactly one line. Messages the
 * digest already cites, or older than its oldest line, are skipped, so folding the same messages
 * twice adds nothing. The digest stays in chronological order and within `maxChars` characters
 * (lines joined by newlines): the oldest lines go first, and none is cut to make room. The same
 * input always gives the same digest.
 *
 * `following` are the messages still in the window, read only to tell whether the last question was answered.
 * @example
 * const digest = foldIntoDigest(entry.digest, evicted, config.maxSummaryLength, kept);
 * // [{ kind: 'event', text: 'Maya: we meet on June 3 at 6pm', sourceIds: ['1'], ts, authorIds: ['42'] },
 * //  { kind: 'collapsed', text: '(3 short replies: ok ×2, lol)', sourceIds: ['2', '3', '4'], ts, authorIds: ['42', '77'] }]
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
	// A digest never reaches back before its oldest line: what is older was dropped to keep the bound, or came too late.
	const floor = lines[0];
	const afterFloor = (message: StoredMessage) =>
		!floor || message.ts > floor.ts || (message.ts === floor.ts && message.id >= (floor.sourceIds[0] ?? ''));
	const fresh = new Set(evicted.filter((message) => !cited.has(message.id) && afterFloor(message)).map((message) => message.id));
	if (fresh.size === 0) return lines.length > 0 ? lines : null;

	const newest = () => lines.reduce<DigestLine | undefined>((last, line) => (!last || byLine(last, line) < 0 ? line : last), undefined);
	const replace = (old: DigestLine, next: DigestLine) => lines.splice(lines.indexOf(old), 1, next);

	const addEvent = (messages: StoredMessage[], text: string) => {
		const ids = messages.map((message) => message.id);
		// Only into the newest line: a line never cites a message newer than a line after it, so the
		// oldest lines can go without leaving a message uncited behind newer lines.
		const last = newest();
		const repeated = last?.kind === 'event' && last.text === text && messages[0]!.ts >= last.ts ? last : undefined;
		if (repeated) {
			replace(repeated, {
				...repeated,
				sourceIds: [...repeated.sourceIds, ...ids],
				authorIds: [...new Set([...(repeated.authorIds ?? []), ...authorsOf(messages)])]
			});
		} else {
			lines.push({ text, sourceIds: ids, ts: messages[0]!.ts, kind: 'event', authorIds: authorsOf(messages) });
		}
	};

	let run: StoredMessage[] = [];
	const flushRun = () => {
		if (run.length === 0) return;
		const last = newest();
		const merged =
			last?.kind === 'collapsed' && run[0]!.ts >= last.ts && dayLabel(run[0]!.ts) === dayLabel(last.ts) ? parseCounts(last.text) : null;
		const counts = merged ?? { other: { items: [], more: 0 }, short: { items: [], more: 0 } };
		for (const message of run) {
			if (classifyCached(message).kind === 'noise') count(counts.short, noiseLabel(message.text));
			else count(counts.other, itemLabel(speakerName(message, personas)));
		}
		if (merged && last) {
			replace(last, {
				...last,
				text: renderCounts(counts),
				sourceIds: [...last.sourceIds, ...run.map((message) => message.id)],
				authorIds: [...new Set([...(last.authorIds ?? []), ...authorsOf(run)])]
			});
		} else {
			lines.push({
				text: renderCounts(counts),
				sourceIds: run.map((message) => message.id),
				ts: run[0]!.ts,
				kind: 'collapsed',
				authorIds: authorsOf(run)
			});
		}
		run = [];
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
				// A yes or no folded with it is shown with the question it settles.
				const withAnswer = reply === 'noise' && fresh.has(next.id);
				if (withAnswer) answers.add(next.id);
				addEvent(
					withAnswer ? [message, next] : [message],
					withAnswer
						? `${said(message, DIGEST_TEXT_CHARS, personas)} → ${said(next, MAX_ANSWER_CHARS, personas)}`
						: said(message, DIGEST_TEXT_CHARS, personas)
				);
				return;
			}
		}
		run.push(message);
	});
	flushRun();

	lines.sort(byLine);
	for (const [index, line] of lines.entries()) if (line.text.length > maxChars) lines[index] = { ...line, text: cut(line.text, maxChars) };
	while (lines.length > 0 && size(lines) > maxChars) lines.shift();
	return lines.length > 0 ? lines : null;
}
