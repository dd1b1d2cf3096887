import { z } from 'zod';
import { MemoryError } from '../errors';
import { safeParseInput } from '../schemas/readInput';
import type { LongTermDependencies } from './longTerm';
import { updateProfile } from './profile';
import { saveTopic } from './topics';

/** The arguments the persona's LLM passes to `remember`. */
export const RememberToolSchema = z.object({
	kind: z
		.enum(['preference', 'note', 'tag', 'topic'])
		.describe('preference: a named preference; note: a fact about the user; tag: a short label; topic: a titled note about one subject'),
	name: z.string().max(100).optional().describe('The preference name or the topic title (required for preference and topic)'),
	text: z.string().describe('What to remember, in one or two sentences')
});

/** The `remember` tool's arguments: what to keep about the user, and whether it is a preference, a note, a tag or a topic. */
export type RememberArguments = z.infer<typeof RememberToolSchema>;

/** Parses the tool's arguments, with an error the LLM can read. */
export function parseRemember(input: unknown): RememberArguments {
	const parsed = safeParseInput(RememberToolSchema, input, 'remember arguments');
	if (!parsed.success)
		throw new MemoryError(
			'INVALID_INPUT',
			`remember needs {"kind": "preference" | "note" | "tag" | "topic", "name"?: string, "text": string}: ${z.prettifyError(parsed.error)}`
		);
	const { kind, name, text } = parsed.data;
	if ((kind === 'preference' || kind === 'topic') && !name?.trim())
		throw new MemoryError('INVALID_INPUT', `remember needs a "name" for a ${kind}.`);
	if (!text.trim()) throw new MemoryError('INVALID_INPUT', 'remember needs a non-empty "text".');
	return parsed.data;
}

/** Saves what the LLM asked to `remember` about a member: a preference, a note or a tag in their profile, or a topic note. */
export async function remember(
	parts: LongTermDependencies,
	userId: string,
	input: unknown,
	now: number
): Promise<{ kind: RememberArguments['kind']; saved: string }> {
	const { kind, name, text } = parseRemember(input);
	if (kind === 'topic') return { kind, saved: (await saveTopic(parts, userId, name!, text, now)).slug };
	const patch = kind === 'preference' ? { preferences: { [name!.trim()]: text } } : kind === 'note' ? { notes: [text] } : { tags: [text] };
	await updateProfile(parts, userId, patch, now);
	return { kind, saved: kind === 'preference' ? name!.trim() : text.trim() };
}
