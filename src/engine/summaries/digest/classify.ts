import { LRUCache } from 'lru-cache';
import type { StoredMessage } from '../../schemas';
import { flat } from './text';

/**
 * Characters of a message the digest reads to classify it: what its line shows (a line is judged by what it says; a date
 * said further on would not be in it). Reading the whole of fifty 4,000-character messages took longer than the rest of
 * their turn's capture.
 */
export const CLASSIFIED_CHARS = 200;

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
/**
 * What every rule below reads at least one of: a letter, a digit or a currency sign. A message of none (emoji,
 * punctuation) is noise whatever it holds, told at one look: the rules' twenty patterns took some 12 µs for 200
 * characters of emoji, fifty times a turn of such messages.
 */
const READABLE = /[\p{L}\p{N}$€£¥₹]/u;
/** A number written in figures: `14`, `4,200`, `3.5`. */
const NUMERAL = /^\d+(?:[.,:]\d+)*$/;
/** An amount a number alone would not make: a currency or a share. */
const AMOUNT = /[$€£¥₹%]/;
const LINK = /\bhttps?:\/\/\S/i;
/** Discord user, role and channel mentions, and a plain `@name`. */
const MENTION = /<@[!&]?\d+>|<#\d+>|(?:^|\s)@[\p{L}\d_.]{2,32}/gu;
const DECISION = new RegExp(
	String.raw`\b(?:decided|decide|decision|agreed (?:on|to|that)|we agree|let${A}s (?!see\b)\w+|lets go|going with|go with|` +
		String.raw`settled on|chose|chosen|picked|confirm(?:ed|s)?|approved?|cancel(?:l?ed|s)?|booked|signed up|it${A}?s a deal)\b`,
	'i'
);
const COMMITMENT = new RegExp(
	String.raw`\b(?:i${A}ll|i will|we${A}ll|we will|you${A}ll|going to|gonna|promise[sd]?|deadline|due (?:on|by|date)|` +
		String.raw`will do|remind(?:er)?|don${A}?t forget|remember to|have to|need to|must|plan(?:ning)? to)\b`,
	'i'
);
const QUESTION_WORD =
	/^(?:who|what|when|where|why|how|which|should|shall|can|could|would|will|do|does|did|is|are|was|were|have|has|anyone|anybody)\b/i;
const CUSTOM_EMOJI = /:[\w~]{1,32}:/g;
export const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
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

/** Characters of a word that {@link fold} reads: a longer one (a run of CJK is one word) is no acknowledgement, however drawn out. */
const MAX_FOLDED_CHARS = 32;

/** `yesss` → `yes`, `cooool` → `cool`, `hahaha` → `haha`: the form a reply word is counted under. */
export function fold(word: string): string {
	const lower = word.toLowerCase().replace(/’/g, "'");
	if (lower.length > MAX_FOLDED_CHARS) return lower;
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
export function words(text: string): Word[] {
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

/** Whether a word says nothing on its own: an acknowledgement, a reaction, a greeting (`ok`, `sure`, `lol`). */
export function isAcknowledgement(word: string): boolean {
	return ACK.has(fold(word));
}

/** Whether a word is a number written in figures. */
export function isNumeral(word: string): boolean {
	return NUMERAL.test(word);
}

/**
 * How the digest treats a message: dates, times and links make an event whatever else it says, and so
 * does a number that counts or prices something (`4200 euros`, `$40`, `twelve chairs`); a number among
 * acknowledgements alone (`ok sounds good 14`) says nothing more than they do. Otherwise a reply of one
 * word, or of acknowledgements, emoji, names and bare numbers only, is noise; then names, @mentions,
 * decisions and commitments make an event; a member's question waits to see whether it is answered;
 * the rest is chatter.
 * @example
 * classify({ role: 'user', text: "Let's meet on June 3 at 6pm" }); // { kind: 'event', signals: ['date', 'number', 'name', 'decision'] }
 * classify({ role: 'user', text: 'haha yes 👍' }); // { kind: 'noise', signals: [] }
 * classify({ role: 'user', text: 'ok sounds good 14' }); // { kind: 'noise', signals: [] }
 */
export function classify(message: Pick<StoredMessage, 'role' | 'text'>): Classification {
	const text = flat(message.text.slice(0, CLASSIFIED_CHARS));
	if (!READABLE.test(text)) return { kind: 'noise', signals: [] };
	// A mention's digits are an id, not a number.
	const bare = text.replace(MENTION, ' ');
	const all = words(text);
	const saysNothing = (word: Word) => word.name || isAcknowledgement(word.text);
	// What a message says besides its figures: nothing, when the rest is acknowledgements and names.
	const besidesFigures = all.filter((word) => !isNumeral(word.text));
	const bareNumber = !AMOUNT.test(bare) && besidesFigures.every(saysNothing);
	const signals: DigestSignal[] = [];
	if (DATE.some((pattern) => pattern.test(bare))) signals.push('date');
	if (NUMBER.test(bare) && !bareNumber) signals.push('number');
	if (LINK.test(bare)) signals.push('link');
	const hard = signals.length > 0;
	// One word, or nothing but acknowledgements, bare numbers and the names of those it thanks or greets.
	if (!hard && (all.length <= 1 || besidesFigures.every(saysNothing))) return { kind: 'noise', signals: [] };
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
export function classifyCached(message: Pick<StoredMessage, 'role' | 'text'>): Classification {
	// What classify reads, and no more: the cache holds no long text of its own.
	const key = `${message.role}\u0000${message.text.slice(0, CLASSIFIED_CHARS)}`;
	let verdict = verdicts.get(key);
	if (!verdict) verdicts.set(key, (verdict = classify(message)));
	return verdict;
}

/** A short reply that settles a question: a yes or a no, or a number (`how many are coming?` → `12`). */
export function isAnswer(message: StoredMessage): boolean {
	const text = message.text.slice(0, CLASSIFIED_CHARS);
	return ANSWER_EMOJI.test(text) || words(text).some((word) => ANSWERS.has(fold(word.text)) || isNumeral(word.text));
}
