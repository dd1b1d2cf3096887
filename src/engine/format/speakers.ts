import type { StoredMessage } from '../schemas';
import { flattenForContext } from './text';

/** What a member's speaker label gains when their name reads as a persona's: no member can type it away. */
export const MEMBER_MARK = ' (member)';
/** The label of a persona line whose persona has no name. */
const NAMELESS_PERSONA = 'persona';

// A speaker label ends at the first ": " of its line, and a message line opens with it: a name holds no colon, and opens
// with none of the marks that open the plugin's other lines, a parenthesis (a digest count line), a square bracket (a timed
// digest line) or a dash (an item); " → " joins a digest question to its answer, so a name writes an arrow "->".
// Each set of marks is written once (a character class's contents), and the three patterns are made of them.
const COLONS = ':\uFE13\uFE55\uFF1A\u2236\uA789\u02F8\u0589\u05C3';
const PARENTHESES = '(\uFF08\uFE59\u207D\u208D';
const BRACKETS_AND_DASHES = '\\[\uFF3B\\-\u2010-\u2015\u2212\uFE63\uFF0D';
const COLON_LIKE = new RegExp(`[${COLONS}]`, 'g');
const OPENING_MARKS = new RegExp(`^[\\s${PARENTHESES}${BRACKETS_AND_DASHES}]+`);
const NEEDS_CLEANING = new RegExp(`[${COLONS}${PARENTHESES}\\s→]|^[${BRACKETS_AND_DASHES}]`);

/**
 * Letters drawn alike, folded to one Latin letter: other scripts' lookalikes, and i, 1 and | as l, 0 as o (NFKD has
 * already folded accents, widths and styles).
 */
const LOOKALIKES = new Map(
	[...'авекмнорстухѕіјһԁԛԝӏɡɑıαβεηικνορτυχωi1|0'].map((char, at) => [char, 'abekmhopctyxsljhdqwlgalabenlkvoptuxwlllo'[at]!])
);

/** How a name reads: `spaced` keeps its words apart, `squeezed` keeps its letters and digits only. */
interface NameKey {
	spaced: string;
	squeezed: string;
}

/**
 * A name reduced to how it reads: compatibility forms folded; accents, control characters and every character drawn as
 * nothing dropped (zero-width and format characters, variation selectors, the Hangul fillers Discord names hide behind);
 * case and lookalikes folded.
 */
function nameKey(name: string): NameKey {
	const folded = [
		...name
			.normalize('NFKD')
			.replace(/[\p{M}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '')
			.toLowerCase()
	]
		.map((char) => LOOKALIKES.get(char) ?? char)
		.join('');
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
		this.keys = [...labels].map(nameKey).filter((key) => key.spaced.length > 0);
	}

	/** Whether a member named `label` could be taken for one of these personas. */
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

/** A stored name as a speaker label shows it: on one line, with no colon, no opening parenthesis, bracket or dash, and no arrow. */
export function displayName(name: string): string {
	const flat = flattenForContext(name);
	if (!NEEDS_CLEANING.test(flat)) return flat;
	return flat.replace(COLON_LIKE, ' ').replace(/→/g, '->').replace(OPENING_MARKS, '').replace(/\s+/g, ' ').trim();
}

/**
 * Who wrote a message, as a line names them: a persona by its name; a member by theirs, marked `(member)` when it reads
 * as a name in `personas`.
 */
export function speakerName(message: Pick<StoredMessage, 'role' | 'authorId' | 'authorName'>, personas: PersonaNames): string {
	const name = message.authorName === undefined ? '' : displayName(message.authorName);
	if (message.role === 'persona') return name || NAMELESS_PERSONA;
	let label = name || (message.authorId ? `user ${message.authorId}` : 'user');
	if (!personas.resembles(label)) return label;
	// Marked until it is no persona's label, even a persona's named like a marked member.
	do label = `${label}${MEMBER_MARK}`;
	while (personas.labels.has(label));
	return label;
}
