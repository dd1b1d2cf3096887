import { LRUCache } from 'lru-cache';
import { byTime } from '../ledger/entries';
import { dayLabel, linesByDay, speakerName, timeLabel } from '../format/lines';
import type { DigestLine, StoredMessage } from '../schemas/types';

/** What makes a message a hard event the digest keeps as it was said. */
export type DigestSignal = 'date' | 'number' | 'link' | 'name' | 'decision' | 'commitment';

/** How the digest treats one message. */
export interface Classification {
	/**
	 * `event`: kept as a line of its own; `question`: a member's question, kept when someone answers it;
	 * `noise`: an acknowledgement or reaction, counted by its text; `chatter`: anything else, counted by its speaker.
	 */
	kind: 'event' | 'question' | 'noise' | 'chatter';
	/** Why it is an event; empty otherwise. */
	signals: DigestSignal[];
}

/** Characters of a message an event line keeps; a longer one is cut at a word boundary. */
export const DIGEST_TEXT_CHARS = 200;
/** Texts or speakers a count line names; the others are counted as `+n more`. */
const MAX_TALLY_ITEMS = 5;
/** Characters of one text or speaker a count line names. */
const MAX_ITEM_CHARS = 24;
/** Characters of a short answer shown after its question. */
const MAX_ANSWER_CHARS = 40;

const A = `['’]`;
const DATE = [
	/\b\d{4}-\d{2}-\d{2}\b/,
	/\b\d{1,2}[/.]\d{1,2}(?:[/.]\d{2,4})?\b/,
	/\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b/i,
	/\b\d{1,2}:\d{2}\b/,
	/\b\d{1,2}(?:st|nd|rd|th)\b/i,
	/\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b/i,
	/\b(?:january|february|march|april|june|july|august|september|october|november|december)\b/i,
	// May the month, not the verb.
	/\b(?:in|on|by|until|till|since|from|early|late|mid|next|this|last)\s+may\b|\bmay\s+\d/i,
	/\b(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\s+\d/i,
	/\b(?:today|tonight|tomorrow|tmrw|yesterday|weekend|noon|midnight|o['’]clock)\b/i,
	/\b(?:next|this|last)\s+(?:week|month|year)\b/i
];
const NUMBER =
	/\d|[$€£¥₹]|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen)\b/i;
const LINK = /\bhttps?:\/\/\S/i;
/** Discord user, role and channel mentions, and a plain `@name`. */
const MENTION = /<@[!&]?\d+>|<#\d+>|(?:^|\s)@[\p{L}\d_.]{2,32}/gu;
const DECISION = new RegExp(
	String.raw`\b(?:decided|decide|decision|agreed (?:on|to|that)|we agree|let${A}s (?!see\b)\w+|lets go|going with|go with|settled on|chose|chosen|picked|confirm(?:ed|s)?|approved?|cancel(?:l?ed|s)?|booked|signed up|it${A}?s a deal)\b`,
	'i'
);
const COMMITMENT = new RegExp(
	String.raw`\b(?:i${A}ll|i will|we${A}ll|we will|you${A}ll|going to|gonna|promise[sd]?|deadline|due (?:on|by|date)|will do|remind(?:er)?|don${A}?t forget|remember to|have to|need to|must|plan(?:ning)? to)\b`,
	'i'
);
const QUESTION_WORD =
	/^(?:who|what|when|where|why|how|which|should|shall|can|could|would|will|do|does|did|is|are|was|were|have|has|anyone|anybody)\b/i;
const CUSTOM_EMOJI = /:[\w~]{1,32}:/g;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const SENTENCE_END = /[.!?…]["')\]*_~]*$/;

/** Words a reply may be made of and still say nothing: acknowledgements, reactions, greetings. */
const ACK = new Set(
	(
		'ok okay k okie okey alright aight ye yes yeah yea ya yah yep yup yas no nope nah naw sure cool nice great good awesome amazing ' +
		'perfect fine true right exactly indeed totally definitely absolutely agreed deal done same lol lmao lmfao rofl haha hehe ha xd ' +
		'omg wow woah whoa oh ooh ah aw hmm hm mhm uh um huh yay thanks thank thx ty tysm np welcome yw please pls plz hi hey hello yo ' +
		"sup bye cya gn gm night morning goodnight i love it this that thats that’s that's so very much too really you u a the to of course " +
		'gg wp brb ikr fr bet word facts mood noted understood got gotcha nvm idk dunno maybe lmk me also here sounds lovely sweet neat ' +
		'wild damn dang rip oof yikes ugh hah congrats congratulations cheers sorry oops'
	).split(' ')
);
/** Short replies that answer a yes/no question. */
const ANSWERS = new Set(
	'ye yes yeah yea ya yah yep yup yas sure ok okay k alright agreed deal done definitely absolutely exactly no nope nah naw'.split(' ')
);
const ANSWER_EMOJI = /👍|👎|✅|❌|🆗|💯/u;

/** The text on one line with its white space collapsed (U+0085 is a line break `\s` misses). */
function flat(text: string): string {
	return text.replace(/[\s\u0085]+/g, ' ').trim();
}

/** Cuts `text` to at most `max` UTF-16 units, at a word boundary where one is near, never inside a character. */
function cut(text: string, max: number): string {
	if (text.length <= max) return text;
	if (max < 2) return '';
	let end = max - 1;
	// A surrogate pair is never split.
	if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
	const head = text.slice(0, end);
	const space = head.lastIndexOf(' ');
	return `${(space >= end * 0.6 ? head.slice(0, space) : head).trimEnd()}…`;
}

/** `yesss` → `yes`, `cooool` → `cool`, `hahaha` → `haha`: the form a reply word is counted under. */
function fold(word: string): string {
	const lower = word.toLowerCase().replace(/’/g, "'");
	if (/^a?(?:ha){2,}h?$/.test(lower)) return 'haha';
	if (/^(?:he){2,}h?$/.test(lower)) return 'hehe';
	if (/^l+o+l+(?:o+l+)*$/.test(lower)) return 'lol';
	if (/^l+m+f+a+o+$/.test(lower)) return 'lmfao';
	if (/^l+m+a+o+$/.test(lower)) return 'lmao';
	if (/^x+d+$/.test(lower)) return 'xd';
	if (ACK.has(lower)) return lower;
	const once = lower.replace(/(.)\1+/g, '$1');
	if (ACK.has(once)) return once;
	const twice = lower.replace(/(.)\1{2,}/g, '$1$1');
	return ACK.has(twice) ? twice : lower;
}

interface Word {
	text: string;
	/** Capitalised and not at the start of a sentence. */
	name: boolean;
}

/** The words of a message (mentions and custom emoji left out), each marked when it reads as a name. */
function words(text: string): Word[] {
	const found: Word[] = [];
	let sentenceStart = true;
	for (const token of text.replace(MENTION, ' ').replace(CUSTOM_EMOJI, ' ').split(' ')) {
		const cores = token.match(WORD) ?? [];
		cores.forEach((core, index) => {
			const start = sentenceStart && index === 0;
			found.push({ text: core, name: !start && /^\p{Lu}\p{Ll}/u.test(core) });
		});
		if (SENTENCE_END.test(token)) sentenceStart = true;
		else if (cores.length > 0) sentenceStart = false;
	}
	return found;
}

/**
 * How the digest treats a message: dates, times, numbers and links make an event whatever else it
 * says; otherwise a reply of one word, or of acknowledgements, emoji and names only, is noise; then
 * names, @mentions, decisions and commitments make an event; a member's question waits to see
 * whether it is answered; the rest is chatter.
 * @example
 * classify({ role: 'user', text: "Let's meet on June 3 at 6pm" }); // { kind: 'event', signals: ['date', 'number', 'name', 'decision'] }
 * classify({ role: 'user', text: 'haha yes 👍' }); // { kind: 'noise', signals: [] }
 */
export function classify(message: Pick<StoredMessage, 'role' | 'text'>): Classification {
	const text = flat(message.text);
	// A mention's digits are an id, not a number.
	const bare = text.replace(MENTION, ' ');
	const signals: DigestSignal[] = [];
	if (DATE.some((pattern) => pattern.test(bare))) signals.push('date');
	if (NUMBER.test(bare)) signals.push('number');
	if (LINK.test(bare)) signals.push('link');
	const hard = signals.length > 0;
	const all = words(text);
	// One word, or nothing but acknowledgements and the names of those it thanks or greets.
	if (!hard && (all.length <= 1 || all.every((word) => word.name || ACK.has(fold(word.text))))) return { kind: 'noise', signals: [] };
	if (all.some((word) => word.name) || bare !== text) signals.push('name');
	if (DECISION.test(text)) signals.push('decision');
	if (COMMITMENT.test(text)) signals.push('commitment');
	if (signals.length > 0) return { kind: 'event', signals };
	if (message.role === 'user' && (text.includes('?') || QUESTION_WORD.test(text))) return { kind: 'question', signals: [] };
	return { kind: 'chatter', signals: [] };
}

// A message is classified again on every turn it stays in the window: the last verdicts are kept.
const verdicts = new LRUCache<string, Classification>({ max: 5_000 });

/** {@link classify}, remembered by role and text. */
function classifyCached(message: Pick<StoredMessage, 'role' | 'text'>): Classification {
	const key = `${message.role}\u0000${message.text}`;
	let verdict = verdicts.get(key);
	if (!verdict) verdicts.set(key, (verdict = classify(message)));
	return verdict;
}

/** A noise message as a count line names it: its words folded and lower-cased, its emoji kept. */
function noiseLabel(text: string): string {
	const folded = flat(text)
		.replace(WORD, (word) => fold(word))
		.replace(/[^\p{L}\p{N}'’\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\u200D\uFE0F:\s]/gu, '')
		.replace(/(\p{Extended_Pictographic})\1+/gu, '$1')
		.replace(/\b(\w+)(?: \1\b)+/g, '$1');
	return itemLabel(flat(folded) || text);
}

/** A text or speaker made safe for a count line: none of the characters the line is parsed by. */
function itemLabel(text: string): string {
	return cut(flat(text.replace(/[,;×()]/g, ' ')), MAX_ITEM_CHARS) || '…';
}

function isAnswer(message: StoredMessage): boolean {
	return ANSWER_EMOJI.test(message.text) || words(message.text).some((word) => ANSWERS.has(fold(word.text)));
}

function sameSpeaker(a: StoredMessage, b: StoredMessage): boolean {
	return a.authorId !== undefined || b.authorId !== undefined ? a.authorId === b.authorId : speakerName(a) === speakerName(b);
}

/** `Maya: text`, the text on one line and cut at `limit` characters. */
function said(message: StoredMessage, limit: number): string {
	return `${flat(speakerName(message))}: ${cut(flat(message.text), limit)}`;
}

function authorsOf(messages: readonly StoredMessage[]): string[] {
	return [...new Set(messages.flatMap((message) => (message.authorId ? [message.authorId] : [])))];
}

// ---------------------------------------------------------------------------------------------
// Count lines: `(3 other messages: Maya ×2, Sol; 4 short replies: ok ×2, lol, 👍)`.

interface Tally {
	/** Label and count, in the order first seen. */
	items: [string, number][];
	/** Messages counted without a label (`+n more`). */
	more: number;
}

interface Counts {
	/** Chatter, by speaker. */
	other: Tally;
	/** Noise, by text. */
	short: Tally;
}

const total = (tally: Tally) => tally.items.reduce((sum, [, count]) => sum + count, tally.more);

function count(tally: Tally, label: string): void {
	const item = tally.items.find(([known]) => known === label);
	if (item) item[1]++;
	else tally.items.push([label, 1]);
}

function renderTally(tally: Tally): string {
	// Most frequent first; a sort is stable, so ties keep the order they were first seen in.
	const sorted = [...tally.items].sort((a, b) => b[1] - a[1]);
	const more = tally.more + sorted.slice(MAX_TALLY_ITEMS).reduce((sum, [, n]) => sum + n, 0);
	return [...sorted.slice(0, MAX_TALLY_ITEMS).map(([label, n]) => (n > 1 ? `${label} ×${n}` : label)), ...(more > 0 ? [`+${more} more`] : [])].join(
		', '
	);
}

function renderCounts(counts: Counts): string {
	const parts: string[] = [];
	const others = total(counts.other);
	const shorts = total(counts.short);
	if (others > 0) parts.push(`${others} other message${others === 1 ? '' : 's'}: ${renderTally(counts.other)}`);
	if (shorts > 0) parts.push(`${shorts} short repl${shorts === 1 ? 'y' : 'ies'}: ${renderTally(counts.short)}`);
	return `(${parts.join('; ')})`;
}

const COUNT_LINE = /^\((.*)\)$/;
const COUNT_PART = /^(\d+) (other messages?|short repl(?:y|ies)): (.+)$/;
const COUNT_ITEM = /^(.*?)(?: ×(\d+))?$/;
const MORE_ITEM = /^\+(\d+) more$/;

/** The counts a count line shows; null when the text is not one (then it is never merged into). */
function parseCounts(text: string): Counts | null {
	const line = COUNT_LINE.exec(text);
	if (!line) return null;
	const counts: Counts = { other: { items: [], more: 0 }, short: { items: [], more: 0 } };
	for (const part of line[1]!.split('; ')) {
		const parsed = COUNT_PART.exec(part);
		if (!parsed) return null;
		const tally = parsed[2]!.startsWith('other') ? counts.other : counts.short;
		for (const item of parsed[3]!.split(', ')) {
			const more = MORE_ITEM.exec(item);
			if (more) tally.more += Number(more[1]);
			else tally.items.push([COUNT_ITEM.exec(item)![1]!, Number(COUNT_ITEM.exec(item)![2] ?? 1)]);
		}
		if (total(tally) !== Number(parsed[1])) return null;
	}
	return counts;
}

// ---------------------------------------------------------------------------------------------
// Folding.

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
			else count(counts.other, itemLabel(speakerName(message)));
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

	const answers = new Set<string>();
	stream.forEach((message, index) => {
		if (!fresh.has(message.id) || answers.has(message.id)) return;
		const { kind } = classifyCached(message);
		if (kind === 'event') {
			flushRun();
			addEvent([message], said(message, DIGEST_TEXT_CHARS));
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
					withAnswer ? `${said(message, DIGEST_TEXT_CHARS)} → ${said(next, MAX_ANSWER_CHARS)}` : said(message, DIGEST_TEXT_CHARS)
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

/**
 * The digest as context lines: `[18:05] Maya: text`, each day opened by its date line, as
 * `datedLines` shows messages. Lines must be in chronological order.
 */
export function renderDigest(lines: readonly DigestLine[]): string[] {
	return linesByDay(lines, (line) => line.ts, digestLineText);
}

/** One digest line with its time (UTC), without its date. */
export function digestLineText(line: DigestLine): string {
	return `[${timeLabel(line.ts)}] ${line.text}`;
}

/** Lines without any of these authors' messages (a FULL member, an erased one). */
export function withoutAuthors(lines: readonly DigestLine[], authorIds: ReadonlySet<string>): DigestLine[] {
	return lines.filter((line) => !(line.authorIds ?? []).some((id) => authorIds.has(id)));
}
