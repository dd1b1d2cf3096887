import { dayLabel, messageLine, timeLabel } from '../format/lines';
import { PersonaNames } from '../format/speakers';
import type { StoredMessage } from '../schemas';

/** One source the background summarizer is given: an archived message, or a digest line standing in for messages no longer archived. */
export interface SummarySource {
	/** The message ids this source stands for (one for an archived message). */
	ids: string[];
	/** Shown with its date, time and speaker. */
	message: StoredMessage;
}

/** Why a background summary was rejected (the digest keeps serving). */
export type SummaryRejection = 'empty' | 'malformed' | 'missing-citation' | 'unknown-id' | 'uncovered-source' | 'too-long';

export const SUMMARY_REJECTIONS: readonly SummaryRejection[] = [
	'empty',
	'malformed',
	'missing-citation',
	'unknown-id',
	'uncovered-source',
	'too-long'
];

/** A summary that passed every check: its lines without their citations, and the ids they cite. */
export interface CheckedSummary {
	text: string;
	sourceIds: string[];
}

export type SummaryCheck = { ok: true; summary: CheckedSummary } | { ok: false; reason: SummaryRejection; detail: string };

/** The citation every line must end with: `[ids: 123, 456]`. */
const CITATION = /\[ids:\s*([^[\]]*)\]/gi;
const TRAILING_CITATION = /\[ids:\s*[^[\]]*\]\s*$/i;
// Bullets and numbering a model adds on its own are not part of the line.
const BULLET = /^(?:[-*•]\s+|\d{1,3}[.)]\s+)/;
const ID = /^[\w.:-]{1,128}$/;

/**
 * The chat messages asking for a summary of `sources` in which every line cites its sources.
 * @example
 * summaryPrompt([{ ids: ['123'], message }], 1500);
 * // user content: "… [id 123] 2026-03-02 [18:00] Maya: We meet on June 3."
 */
export function summaryPrompt(sources: readonly SummarySource[], maxLength: number): { role: 'system' | 'user'; content: string }[] {
	const system = [
		'You summarise part of a Discord conversation for a chat bot that will read the summary as its memory.',
		'Keep what matters later: decisions, dates, numbers, names, commitments, open questions. Drop greetings and small talk.',
		'Write one fact per line, in plain text, with no heading and no introduction.',
		'EVERY line must end with the ids of the messages it draws on, exactly in this form: [ids: 123, 456]',
		'Cite only ids from the list you are given, and cite every id of the list at least once.',
		`Stay under ${maxLength} characters in all.`
	].join('\n');
	const personas = PersonaNames.of(sources.map((source) => source.message));
	const lines = sources.map((source) => {
		const label = source.ids.length === 1 ? `[id ${source.ids[0]}]` : `[ids ${source.ids.join(', ')}]`;
		return `${label} ${dayLabel(source.message.ts)} [${timeLabel(source.message.ts)}] ${messageLine(source.message, personas)}`;
	});
	return [
		{ role: 'system', content: system },
		{ role: 'user', content: `Messages (UTC times), each with its id:\n${lines.join('\n')}` }
	];
}

/**
 * Checks a model's answer against the ids it was given. Accepted only when it is well-formed, every
 * line ends with a citation, every cited id was given, and every given id is cited.
 */
export function checkSummary(content: string, givenIds: readonly string[], maxLength: number): SummaryCheck {
	const given = new Set(givenIds);
	const lines = content
		.split(/\r?\n/)
		.map((line) => line.trim())
		// A model may wrap its answer in a code fence; the fence lines carry nothing.
		.filter((line) => line.length > 0 && !/^```\w*$/.test(line));
	if (lines.length === 0) return { ok: false, reason: 'empty', detail: 'the answer holds no line' };

	const texts: string[] = [];
	const cited = new Set<string>();
	for (const [at, raw] of lines.entries()) {
		const line = raw.replace(BULLET, '');
		if (!TRAILING_CITATION.test(line)) {
			const broken = /\[ids:/i.test(line);
			return {
				ok: false,
				reason: broken ? 'malformed' : 'missing-citation',
				detail: `line ${at + 1} does not end with [ids: …]: ${JSON.stringify(raw.slice(0, 120))}`
			};
		}
		const ids = [...line.matchAll(CITATION)].flatMap((match) =>
			match[1]!
				.split(/[\s,;]+/)
				.filter(Boolean)
				.map((id) => id.replace(/^#/, ''))
		);
		if (ids.length === 0) return { ok: false, reason: 'missing-citation', detail: `line ${at + 1} cites no id` };
		const badSyntax = ids.find((id) => !ID.test(id));
		if (badSyntax !== undefined)
			return { ok: false, reason: 'malformed', detail: `line ${at + 1} cites ${JSON.stringify(badSyntax)}, not an id` };
		const unknown = ids.find((id) => !given.has(id));
		if (unknown !== undefined) return { ok: false, reason: 'unknown-id', detail: `line ${at + 1} cites ${unknown}, which it was not given` };
		const text = line
			.replace(CITATION, ' ')
			.replace(/\s{2,}/g, ' ')
			.trim();
		if (text.length === 0 || /[[\]]/.test(text.replace(/\[[^[\]]*\]/g, '')))
			return { ok: false, reason: 'malformed', detail: `line ${at + 1} has no text besides its citation, or a broken bracket` };
		for (const id of ids) cited.add(id);
		texts.push(text);
	}
	const uncovered = givenIds.filter((id) => !cited.has(id));
	if (uncovered.length > 0)
		return {
			ok: false,
			reason: 'uncovered-source',
			detail: `no line cites ${uncovered.slice(0, 5).join(', ')}${uncovered.length > 5 ? ` and ${uncovered.length - 5} more` : ''}`
		};
	const text = texts.join('\n');
	if (text.length > maxLength) return { ok: false, reason: 'too-long', detail: `${text.length} characters, above ${maxLength}` };
	return { ok: true, summary: { text, sourceIds: givenIds.filter((id) => cited.has(id)) } };
}
