import { z } from 'zod';
import { MemoryError } from '../errors';

/** The arguments the persona's LLM passes to `update_short_term_memory`. */
export const ShortTermMemoryToolSchema = z.object({
	summary: z
		.string()
		.describe(
			'A concise summary of the conversation so far: who said what that matters, decisions, dates, open questions. Replaces the ' +
				'previous summary.'
		)
});

/**
 * The tool's arguments for a server: one free-form `summary`, or in category mode one required
 * string per category.
 */
export function shortTermMemoryToolSchema(categories: readonly string[] = []) {
	if (categories.length === 0) return ShortTermMemoryToolSchema;
	return z.object(
		Object.fromEntries(
			categories.map((name) => [name, z.string().describe(`What matters about "${name}" in this conversation. Replaces the previous text.`)])
		)
	);
}

// Template slots a prompt left unfilled, such as `{user}` or `{persona.name}`: never stored.
const PLACEHOLDER = /\{[A-Za-z_][\w.]*\}/g;

/** Trims, drops unfilled `{placeholder}` tokens and cuts to `maxLength` characters. */
export function cleanSummary(summary: string, maxLength: number): string {
	const cleaned = summary
		.replace(PLACEHOLDER, '')
		.replace(/[ \t]{2,}/g, ' ')
		.trim();
	return cleaned.length > maxLength ? `${cleaned.slice(0, maxLength - 1).trimEnd()}…` : cleaned;
}

/** The summary the tool's arguments give: one free-form text, or in category mode one text per category. */
export function summaryArguments(
	input: unknown,
	categoryNames: readonly string[],
	maxLength: number
): { text: string; categories: Record<string, string> | null } {
	return categoryNames.length > 0 ? categoryTexts(input, categoryNames, maxLength) : { text: freeText(input, maxLength), categories: null };
}

function freeText(input: unknown, maxLength: number): string {
	const summary = typeof input === 'object' && input !== null && 'summary' in input ? (input as { summary: unknown }).summary : input;
	if (typeof summary !== 'string')
		throw new MemoryError(
			'INVALID_INPUT',
			`update_short_term_memory needs "summary" to be a string; got ${summary === null ? 'null' : typeof summary}.`
		);
	const text = cleanSummary(summary, maxLength);
	if (text.length === 0) throw new MemoryError('INVALID_INPUT', 'update_short_term_memory needs a non-empty "summary".');
	return text;
}

/** Category mode: every category is required, and together they stay within the summary length. */
function categoryTexts(input: unknown, names: readonly string[], maxLength: number): { text: string; categories: Record<string, string> } {
	if (typeof input !== 'object' || input === null)
		throw new MemoryError('INVALID_INPUT', `update_short_term_memory needs an object with a string for each category: ${names.join(', ')}.`);
	const record = input as Record<string, unknown>;
	const missing = names.filter((name) => typeof record[name] !== 'string');
	if (missing.length > 0)
		throw new MemoryError(
			'INVALID_INPUT',
			`update_short_term_memory needs a string for each category; missing or not a string: ${missing.join(', ')}.`
		);
	const share = Math.floor(maxLength / names.length);
	const categories = Object.fromEntries(names.map((name) => [name, cleanSummary(record[name] as string, share)]));
	if (Object.values(categories).every((text) => text.length === 0))
		throw new MemoryError('INVALID_INPUT', 'update_short_term_memory needs at least one non-empty category.');
	return { text: names.map((name) => `${name}: ${categories[name]}`).join('\n'), categories };
}
