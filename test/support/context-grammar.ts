import type { ContextTier } from '../../src';

/**
 * The grammar of a built context, written from docs/context.md ("Grammar") and not from the code that writes it: a
 * parser that reads a context back into the lines the plugin writes and throws on any line it does not know. A test
 * that parses a context built from hostile text learns which lines the plugin wrote, and with which speaker.
 */

/** One line of a context. `persona` says whether a line's speaker label is one of the personas'. */
export type ContextLine =
	| { kind: 'header'; text: string }
	| { kind: 'nudge'; turns: number }
	| { kind: 'date'; day: string }
	| { kind: 'message'; speaker: string; persona: boolean; text: string }
	| { kind: 'digest'; time: string; speaker: string; persona: boolean; text: string; answer?: { speaker: string; persona: boolean; text: string } }
	| { kind: 'count'; time: string; text: string }
	| { kind: 'item'; text: string }
	| { kind: 'tags'; tags: string[] }
	| { kind: 'channel'; channelId: string; where: 'here' | 'DM' | 'another server'; ago: string };

export interface ParsedBlock {
	tier: ContextTier;
	lines: ContextLine[];
}

const PROFILE_HEADER = '# What this user asked you to remember about them';
const TOPICS_HEADER = '# Their notes on topics that came up';
const SUMMARY_HEADER = '# Summary of this conversation';
const SINCE_HEADER = '# Since then (digest, UTC)';
const DIGEST_HEADER = '# Earlier in this conversation (digest, UTC)';
const OTHERS_HEADER = '# Other channels';
const RELEVANT_HEADER = '# Earlier messages that may be relevant (UTC)';
const RECENT_HEADER = '# Recent messages in this conversation (UTC)';

/** Every line the plugin writes word for word, and nothing a stored text may fill. */
export const FIXED_LINES = [
	PROFILE_HEADER,
	TOPICS_HEADER,
	SUMMARY_HEADER,
	SINCE_HEADER,
	DIGEST_HEADER,
	OTHERS_HEADER,
	RELEVANT_HEADER,
	RECENT_HEADER
];

const NUDGE = new RegExp(
	"^# Memory: (\\d+) turns since this conversation's summary was refreshed\\. " +
		'Call update_short_term_memory with a short summary of what matters so far\\.$'
);
const DATE = /^\[(\d{4}-\d{2}-\d{2})\]$/;
// A speaker label holds no colon: it ends at the first ": ". A message line opens with it, and it opens with a letter, a
// digit or an emoji that is no arrow; a digest line opens with its time, and an answer's line with an arrow.
const TIMED = /^\[(\d{2}:\d{2})\] ([^:]+): (.*)$/;
const ANSWER = /^→ ([^:]+): (.*)$/;
const MESSAGE =
	/^((?![\u2190-\u21FF\u2794-\u27BF\u27F0-\u27FF\u2900-\u297F\u2B00-\u2BFF\u{1F800}-\u{1F8FF}])[\p{L}\p{N}\p{Extended_Pictographic}][^:]*): (.*)$/u;
const COUNT = /^\[(\d{2}:\d{2})\] \((\d+ (?:other messages?|short repl(?:y|ies)): .*)\)$/;
const SPOKEN = /^([^:]+): (.*)$/;
const ITEM = /^- (.+)$/;
const TAGS = /^# Tags: (.+)$/;
const CHANNEL = /^<#([\w.-]+)>( \(DM\)| \(another server\))?, (just now|\d+ min ago|\d+ h ago|\d+ d ago):$/;
/** No line holds a line break other than the newline that ends it, nor any other control character. */
const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

const TIER_OF_HEADER: Record<string, ContextTier> = {
	[PROFILE_HEADER]: 'profile',
	[SUMMARY_HEADER]: 'summary',
	[DIGEST_HEADER]: 'summary',
	[OTHERS_HEADER]: 'summary',
	[RELEVANT_HEADER]: 'relevant',
	[RECENT_HEADER]: 'recent'
};
const TIER_ORDER: readonly ContextTier[] = ['profile', 'nudge', 'summary', 'relevant', 'recent'];

/** Thrown for a context that breaks the grammar; says which line and why. */
export class GrammarError extends Error {}

/**
 * Parses `text` (a context's text) with `personas` the persona labels its lines may carry: blocks apart by one blank
 * line, in tier order, each a sequence of the lines its tier writes. Throws {@link GrammarError} on any other line.
 */
export function parseContext(text: string, personas: readonly string[]): ParsedBlock[] {
	if (text === '') return [];
	const blocks: ParsedBlock[] = [];
	const rows = text.split('\n');
	const bad = rows.findIndex((row) => FORBIDDEN.test(row));
	if (bad >= 0) throw new GrammarError(`line ${bad + 1} holds a line break or a control character: ${JSON.stringify(rows[bad])}`);
	let start = 0;
	for (let at = 0; at <= rows.length; at++) {
		if (at < rows.length && rows[at] !== '') continue;
		if (at === start) throw new GrammarError(`line ${at + 1}: a blank line where a block should start`);
		blocks.push(parseBlock(rows.slice(start, at), start + 1, personas));
		start = at + 1;
	}
	const tiers = blocks.map((block) => block.tier);
	const ordered = [...tiers].sort((a, b) => TIER_ORDER.indexOf(a) - TIER_ORDER.indexOf(b));
	if (tiers.join() !== ordered.join() || new Set(tiers).size !== tiers.length) throw new GrammarError(`blocks out of order: ${tiers.join(', ')}`);
	return blocks;
}

/** Reads one block's rows; `first` is the number of its first line in the context, for messages. */
function parseBlock(rows: string[], first: number, personas: readonly string[]): ParsedBlock {
	let at = 0;
	const lines: ContextLine[] = [];
	const fail = (why: string): never => {
		throw new GrammarError(`line ${first + at}: ${why}: ${JSON.stringify(rows[at] ?? '(end of block)')}`);
	};
	const peek = () => rows[at];
	const take = (line: ContextLine) => {
		lines.push(line);
		at++;
	};
	const header = (text: string) => {
		if (peek() !== text) return false;
		take({ kind: 'header', text });
		return true;
	};
	// Date lines and the message or digest lines under them; at least one such line, and each after a date line.
	const dated = (timed: (row: string) => ContextLine | null, required: boolean) => {
		let count = 0;
		let day: string | null = null;
		while (at < rows.length) {
			const date = DATE.exec(rows[at]!);
			if (date) {
				if (day !== null && date[1]! <= day) fail('a date line not after the one before');
				day = date[1]!;
				take({ kind: 'date', day });
				const line = rows[at] === undefined ? null : timed(rows[at]!);
				if (!line) fail('a date line with no line under it');
				continue;
			}
			const line = timed(rows[at]!);
			if (!line) break;
			if (day === null) fail('a message line before any date line');
			take(line);
			count++;
			// A digest question's answer: the line under it, opening with an arrow.
			const answer = line.kind === 'digest' ? ANSWER.exec(rows[at] ?? '') : null;
			if (answer && line.kind === 'digest') {
				line.answer = { speaker: answer[1]!, persona: personas.includes(answer[1]!), text: answer[2]! };
				at++;
			}
		}
		if (required && count === 0) fail('expected dated lines');
	};
	const message = (row: string): ContextLine | null => {
		const match = MESSAGE.exec(row);
		return match ? { kind: 'message', speaker: match[1]!, persona: personas.includes(match[1]!), text: match[2]! } : null;
	};
	const digest = (row: string): ContextLine | null => {
		const count = COUNT.exec(row);
		if (count) return { kind: 'count', time: count[1]!, text: count[2]! };
		const match = TIMED.exec(row);
		if (!match) return null;
		return { kind: 'digest', time: match[1]!, speaker: match[2]!, persona: personas.includes(match[2]!), text: match[3]! };
	};
	const items = () => {
		while (at < rows.length && ITEM.test(rows[at]!)) take({ kind: 'item', text: ITEM.exec(rows[at]!)![1]! });
	};

	const nudge = NUDGE.exec(rows[0]!);
	let tier: ContextTier;
	if (nudge) {
		tier = 'nudge';
		take({ kind: 'nudge', turns: Number(nudge[1]) });
	} else {
		tier = TIER_OF_HEADER[rows[0]!] ?? fail('a block that opens with no header');
		if (tier === 'profile') {
			header(PROFILE_HEADER);
			items();
			const tags = TAGS.exec(peek() ?? '');
			if (tags) take({ kind: 'tags', tags: tags[1]!.split(', ') });
			if (header(TOPICS_HEADER)) {
				const before = lines.length;
				items();
				if (lines.length === before) fail('a topics header with no topic under it');
			}
			if (lines.length === 1) fail('a profile block with nothing in it');
		} else if (tier === 'summary') {
			if (header(SUMMARY_HEADER)) {
				items();
				if (header(SINCE_HEADER)) dated(digest, true);
			} else if (header(DIGEST_HEADER)) {
				dated(digest, true);
			}
			if (header(OTHERS_HEADER)) {
				do {
					const label = CHANNEL.exec(peek() ?? '') ?? fail('expected a channel label');
					const where = label[2] === ' (DM)' ? 'DM' : label[2] === ' (another server)' ? 'another server' : 'here';
					take({ kind: 'channel', channelId: label[1]!, where, ago: label[3]! });
					items();
					dated(message, false);
				} while (at < rows.length && CHANNEL.test(rows[at]!));
			}
		} else {
			header(tier === 'relevant' ? RELEVANT_HEADER : RECENT_HEADER);
			dated(message, true);
		}
	}
	if (at < rows.length) fail(`a line the ${tier} block does not write here`);
	return { tier, lines };
}
