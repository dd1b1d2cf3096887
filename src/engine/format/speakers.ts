import type { StoredMessage } from '../schemas';
import { skeleton } from './skeleton';
import { flattenForContext } from './text';

/**
 * What a name's reading leaves out: accents and other marks drawn over or under a letter, control and format characters,
 * characters drawn as nothing. A spacing mark is drawn as a letter of its own (`ಂ` as `o`): it is read by its skeleton
 * first, and what is left of the marks goes after.
 */
const UNSEEN = /[\p{Mn}\p{Me}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const MARKS = /\p{M}/gu;

/** What a member's speaker label gains when their name reads as a persona's: no member can type it away. */
export const MEMBER_MARK = ' (member)';
/** The label of a persona line whose persona has no name. */
const NAMELESS_PERSONA = 'persona';
/**
 * Names a model reads as a chat's roles or as the plugin's own voice (the nudge opens `# Memory:`): a member named so, or
 * so followed by more words, is marked as one named like a persona is. The grammar needs none of them (no line a member
 * fills opens as the plugin's), but `System: …` among the messages would still read to a model as an instruction.
 */
const ROLE_NAMES = ['system', 'assistant', 'developer', 'tool', 'memory', 'user', NAMELESS_PERSONA];

// A speaker label ends at the first ": " of its line: a name holds no colon nor any of its lookalikes. " → " joins a digest
// question to its answer in a stored line, so a name writes an arrow "->".
const COLONS = ':\uFE13\uFE55\uFF1A\u2236\uA789\u02F8\u0589\u05C3';
const COLON_LIKE = new RegExp(`[${COLONS}]`, 'g');
// A message line opens with its speaker's label, and every line the plugin writes itself opens with a mark (`#`, `[`, `(`,
// `-`, `<`, `→`; see pluginLines.ts): a label opens with a letter, a digit or an emoji, never with punctuation, a symbol
// of mathematics (`<`, most arrows), a modifier or currency sign, a mark, a space, nor an arrow of any block, so no
// name, however written, opens a line the plugin writes.
const ARROWS = '\u2190-\u21FF\u2794-\u27BF\u27F0-\u27FF\u2900-\u297F\u2B00-\u2BFF\u{1F800}-\u{1F8FF}';
const NO_OPENING = `(?:[${ARROWS}]|(?![\\p{L}\\p{N}\\p{Extended_Pictographic}])[\\s\\S])`;
const NOT_AN_OPENING = new RegExp(`^${NO_OPENING}+`, 'u');
const NEEDS_CLEANING = new RegExp(`[${COLONS}\\s→]|^${NO_OPENING}`, 'u');

/**
 * Small capitals Unicode's confusables leave out (`ʟ`; `ꜱᴏ` it maps), read as the letters they are drawn as. A name is
 * lower-cased before it is compared, so these are its only letters that stay apart from their lower-case forms.
 */
const SMALL_CAPITALS = new Map([...'ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘꞯʀꜱᴛᴜᴠᴡʏᴢ'].map((char, at) => [char, 'abcdefghijklmnopqrstuvwyz'[at]!]));

/** How a name reads: `spaced` keeps its words apart, `squeezed` keeps its letters and digits only. */
interface NameKey {
	spaced: string;
	squeezed: string;
}

/**
 * A name reduced to how it reads: compatibility forms folded (widths, styled letters); accents, control characters and
 * every character drawn as nothing dropped (zero-width and format characters, variation selectors, the Hangul fillers
 * Discord names hide behind); then its confusable skeleton (UTS #39, every script), lower-cased, and the skeleton of
 * that, since lower case has lookalikes of its own (`m` is drawn as `rn`).
 */
function nameKey(name: string): NameKey {
	let key = nameKeys.get(name);
	if (key === undefined) {
		key = readNameKey(name);
		// The names of a bot's channels recur from context to context; past a few thousand the map starts again rather than grow.
		if (nameKeys.size >= 4096) nameKeys.clear();
		nameKeys.set(name, key);
	}
	return key;
}
const nameKeys = new Map<string, NameKey>();

/** {@link nameKey}, computed. */
function readNameKey(name: string): NameKey {
	const bare = [...name.normalize('NFKD').replace(UNSEEN, '')].map((char) => SMALL_CAPITALS.get(char) ?? char).join('');
	const folded = skeleton(skeleton(bare).toLowerCase()).replace(UNSEEN, '').replace(MARKS, '');
	const spaced = folded.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
	return { spaced, squeezed: spaced.replace(/ /g, '') };
}

/**
 * The persona names of one context: a member whose name reads as one of them (the same letters whatever the case,
 * width, accents, lookalike letters, spacing or punctuation, or the name followed by more words) has
 * {@link MEMBER_MARK} added to their label, so a persona's label on a line is always the persona's.
 */
export class PersonaNames {
	/** The personas' labels as lines show them. */
	public readonly labels: ReadonlySet<string>;
	private readonly keys: NameKey[];
	private readonly verdicts = new Map<string, boolean>();

	public constructor(names: Iterable<string | null | undefined>) {
		const labels = new Set([NAMELESS_PERSONA]);
		for (const name of names) if (name && displayName(name)) labels.add(displayName(name));
		this.labels = labels;
		this.keys = [...labels, ...ROLE_NAMES].map(nameKey).filter((key) => key.spaced.length > 0);
	}

	/** Whether a member named `label` could be taken for one of these personas, or for a role ({@link ROLE_NAMES}). */
	public resembles(label: string): boolean {
		let verdict = this.verdicts.get(label);
		if (verdict === undefined) {
			const key = nameKey(label);
			verdict = this.keys.some(
				(persona) => (persona.squeezed.length > 0 && key.squeezed === persona.squeezed) || `${key.spaced} `.startsWith(`${persona.spaced} `)
			);
			// A context names a few dozen speakers at most; past that the map starts again rather than grow.
			if (this.verdicts.size >= 1024) this.verdicts.clear();
			this.verdicts.set(label, verdict);
		}
		return verdict;
	}

	/** No persona names known: only the nameless persona's label is kept from members. */
	public static readonly none = new PersonaNames([]);

	/** The names of the persona messages among `messages`, and `names`. */
	public static of(messages: Iterable<Pick<StoredMessage, 'role' | 'authorName'>>, names: Iterable<string | null | undefined> = []): PersonaNames {
		const found = new Set<string | null | undefined>(names);
		for (const message of messages) if (message.role === 'persona') found.add(message.authorName);
		return new PersonaNames(found);
	}
}

/**
 * A stored name as a speaker label shows it: on one line, with no colon, opening with a letter, a digit or an emoji (what
 * came before is dropped, and so is a letter drawn as a mark, `ᐸ` as `<`), and with no arrow.
 */
export function displayName(name: string): string {
	const flat = flattenForContext(name);
	if (!NEEDS_CLEANING.test(flat) && !opensWithMarkLookalike(flat)) return flat;
	let label = flat.replace(COLON_LIKE, ' ').replace(/→/g, '->').replace(NOT_AN_OPENING, '');
	while (opensWithMarkLookalike(label)) label = label.slice(String.fromCodePoint(label.codePointAt(0)!).length).replace(NOT_AN_OPENING, '');
	return label.replace(/\s+/g, ' ').trim();
}

/** Whether `label` opens with a character Unicode's confusables draw as one no label may open with. */
function opensWithMarkLookalike(label: string): boolean {
	const first = label.codePointAt(0);
	return first !== undefined && first > 0x7f && NOT_AN_OPENING.test(skeleton(String.fromCodePoint(first)));
}

/**
 * Who wrote a message, as a line names them: a persona by its name; a member by theirs, marked `(member)` when it reads
 * as a name in `personas`.
 */
export function speakerName(message: Pick<StoredMessage, 'role' | 'authorId' | 'authorName'>, personas: PersonaNames): string {
	const name = message.authorName === undefined ? '' : displayName(message.authorName);
	if (message.role === 'persona') return name || NAMELESS_PERSONA;
	// A member without a name is labelled by their id, which is no one's name: `user <id>` is marked only when a persona has it.
	let label = name || (message.authorId ? `user ${message.authorId}` : 'user');
	if (name ? !personas.resembles(label) : !personas.labels.has(label)) return label;
	// Marked until it is no persona's label, even a persona's named like a marked member.
	do label = `${label}${MEMBER_MARK}`;
	while (personas.labels.has(label));
	return label;
}
