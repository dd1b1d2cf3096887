import { processTerm, termKey, tokenize } from './terms';

/** Who wrote a message, as far as names go. */
interface Named {
	authorName?: string | undefined;
}

/** A name as people write it to someone: a capital, then small letters (`Kat`, `Jo`; not `OMG`, not `i`). */
const NAME = String.raw`(\p{Lu}[\p{Ll}'’]+)`;
/** What may follow a name that ends a message: punctuation, a kiss, emoji. */
const TAIL = String.raw`[\s,.!?…x\p{Extended_Pictographic}\u{FE0F}]*$`;

/**
 * Words in any case (`[hH][eE][yY]`): a pattern cannot take the `i` flag, under which `\p{Lu}` matches small letters too.
 */
function caseless(...words: string[]): string {
	return `(?:${words.map((word) => word.replace(/\p{L}/gu, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`)).join('|')})`;
}

const GREETING = caseless(
	'hey',
	'hi',
	'hiya',
	'hello',
	'yo',
	'oi',
	'morning',
	'good morning',
	'night',
	'good night',
	'gn',
	'thanks',
	'thank you',
	'ty',
	'omg',
	'love you',
	'love u',
	'miss you',
	'miss u',
	'ok',
	'okay',
	'aw',
	'aww',
	'congrats',
	'congratulations',
	'happy birthday',
	'sorry',
	'bye'
);
const HELLO = caseless('hi', 'hey', 'hiya', 'hello');

/** `morning Kat`, `thanks, Kat!`, `love u Kat x`: the one the message is written to. */
const ADDRESSED = [new RegExp(String.raw`^${GREETING}[\s,!]+${NAME}${TAIL}`, 'u'), new RegExp(String.raw`,\s*${NAME}${TAIL}`, 'u')];
/** `call me Kat`, `my name is Kat`: the author, said outright. */
const INTRODUCED = new RegExp(String.raw`\b${caseless('call me', 'my name is', "my name's", "name's")}\s+${NAME}`, 'u');
/** `its Kat, new number`, `Kat here`: the author, as a message opens. */
const SIGNED = [
	new RegExp(String.raw`^(?:${HELLO}[\s,!]*)?${caseless("it's", 'its', 'this is')}\s+${NAME}(?:[\s,.!?]|$)`, 'u'),
	new RegExp(String.raw`^(?:${HELLO}[\s,!]*)?${NAME}\s+here\b`, 'u')
];
/** Capitalised words that follow a greeting or `it's` as often as names do. */
const NOT_NAMES = new Set(
	[
		'monday',
		'tuesday',
		'wednesday',
		'thursday',
		'friday',
		'saturday',
		'sunday',
		'january',
		'february',
		'march',
		'april',
		'may',
		'june',
		'july',
		'august',
		'september',
		'october',
		'november',
		'december',
		'everyone',
		'everybody',
		'all',
		'guys',
		'babe',
		'love',
		'mate'
	].map((word) => processTerm(word))
);
/** Messages longer than this hold no greeting or signature worth reading. */
const MAX_CHARS = 120;
/** Times a name must be seen used for one speaker before it stands for them... */
const MIN_VOTES = 2;
/** ...and at least this many times as often as for anyone else. */
const MARGIN = 2;

/**
 * The names the speakers of a channel go by besides their display names, learned from the channel: how the others
 * address them (`morning Kat`, `thanks, Kat!`) and how they sign or introduce themselves (`its Kat, new number`,
 * `call me Kat`). A question that names a speaker by such a name then ranks that speaker's messages as their display name
 * would (index/rank.ts), instead of the few lines where someone greeted them by it.
 *
 * Each name stands for the first word of a display name (a term of the author field). A name seen for several speakers
 * stands for the one it was seen for most, and only when at least twice as often as for any other.
 */
export class SpeakerAliases {
	/** Alias term key → (display name term key → times seen). */
	private readonly seen = new Map<number, Map<number, number>>();

	/** Reads one message for names: its `author` signing, or its `addressee` (the one it answers) addressed. */
	public learn(text: string, author: Named, addressee: Named | undefined): void {
		if (text.length > MAX_CHARS) return;
		const introduced = INTRODUCED.exec(text)?.[1];
		if (introduced) this.count(introduced, author, 2);
		for (const pattern of SIGNED) {
			const name = pattern.exec(text)?.[1];
			if (name) this.count(name, author, 1);
		}
		if (!addressee) return;
		for (const pattern of ADDRESSED) {
			const name = pattern.exec(text)?.[1];
			if (name) this.count(name, addressee, 1);
		}
	}

	/** The author-field term key a query term stands for, when the term is a speaker's learned name. */
	public nameKeyOf(aliasKey: number): number | undefined {
		const counts = this.seen.get(aliasKey);
		if (!counts) return undefined;
		let best: number | undefined;
		let most = 0;
		let runnerUp = 0;
		for (const [nameKey, times] of counts) {
			if (times > most) {
				runnerUp = most;
				most = times;
				best = nameKey;
			} else if (times > runnerUp) runnerUp = times;
		}
		return most >= MIN_VOTES && most >= MARGIN * runnerUp ? best : undefined;
	}

	private count(name: string, speaker: Named, times: number): void {
		const alias = processTerm(name);
		const nameKey = firstNameKey(speaker);
		if (alias === null || nameKey === undefined || NOT_NAMES.has(alias)) return;
		const aliasKey = termKey(alias);
		// A display name's own first word needs no alias.
		if (aliasKey === nameKey) return;
		let counts = this.seen.get(aliasKey);
		if (!counts) this.seen.set(aliasKey, (counts = new Map()));
		counts.set(nameKey, (counts.get(nameKey) ?? 0) + times);
	}
}

/** The term key of the first word of a speaker's display name, as the author field indexes it (without its field bit). */
function firstNameKey(speaker: Named): number | undefined {
	for (const token of tokenize(speaker.authorName ?? '')) {
		const term = processTerm(token);
		if (term !== null) return termKey(term);
	}
	return undefined;
}
