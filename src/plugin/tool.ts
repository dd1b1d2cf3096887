import { container } from '@sapphire/framework';
import type { Message } from 'discord.js';
import { z } from 'zod';
import { MemoryError } from '../engine';
import { RememberToolSchema } from '../engine';
import { ShortTermMemoryToolSchema, shortTermMemoryToolSchema } from '../engine';
import { isReadableMessage, locationOf } from './location';
import { reportMemoryError } from './report';
import { forgetChoicesChanged } from './forgetChoices';
import type { PersonaIdentity } from './location';

/** A tool in the OpenAI-compatible `tools` format, its JSON schema generated from zod. */
function functionTool(name: string, description: string, parameters: z.ZodType) {
	return Object.freeze({ type: 'function' as const, function: { name, description, parameters: z.toJSONSchema(parameters) } });
}

/** The tool's name, as the LLM calls it. */
export const SHORT_TERM_MEMORY_TOOL_NAME = 'update_short_term_memory';

/**
 * The `update_short_term_memory` tool in the OpenAI-compatible `tools` format, its JSON schema
 * generated from zod. Offer it to the persona's LLM; pass its calls to {@link handleShortTermMemoryTool}.
 */
export const shortTermMemoryTool = functionTool(
	SHORT_TERM_MEMORY_TOOL_NAME,
	'Replace the short-term memory of this conversation with a new summary. Call it when asked to refresh memory, or when something worth ' +
		'remembering happened. At most once per reply.',
	ShortTermMemoryToolSchema
);

/**
 * The tool as offered in one server: in category mode (`setServerSettings(id, { summaryCategories })`)
 * it asks for one required string per category. Falls back to {@link shortTermMemoryTool} in DMs and
 * when memory is unavailable.
 * @example
 * const tools = [await shortTermMemoryToolFor(message.guildId)];
 */
export async function shortTermMemoryToolFor(guildId: string | null): Promise<typeof shortTermMemoryTool> {
	if (guildId === null) return shortTermMemoryTool;
	try {
		const { summaryCategories } = await container.memory.getServerSettings(guildId);
		if (summaryCategories.length === 0) return shortTermMemoryTool;
		return functionTool(SHORT_TERM_MEMORY_TOOL_NAME, shortTermMemoryTool.function.description, shortTermMemoryToolSchema(summaryCategories));
	} catch {
		return shortTermMemoryTool;
	}
}

/**
 * Runs one call of `update_short_term_memory` for a reply to `message`. Returns the JSON text to send
 * back to the LLM as the tool result: `{ "ok": true, … }` or `{ "ok": false, "error": "…" }`. Never throws.
 * @example
 * const result = await handleShortTermMemoryTool(call.function.arguments, message, { id: 'sol' });
 * messages.push({ role: 'tool', tool_call_id: call.id, content: result });
 */
export async function handleShortTermMemoryTool(args: unknown, message: Message, persona: PersonaIdentity = {}): Promise<string> {
	if (!isReadableMessage(message, 'tool'))
		return JSON.stringify({ ok: false, error: 'Memory is unavailable right now; the summary was not stored.' });
	try {
		const parsed = typeof args === 'string' ? parseJson(args) : args;
		if (typeof parsed !== 'object' || parsed === null)
			throw new MemoryError('INVALID_INPUT', 'The tool arguments must be a JSON object, such as {"summary": "…"}.');
		const result = await container.memory.updateShortTermMemory({ ...locationOf(message, persona), turnId: message.id }, parsed);
		return JSON.stringify({ ok: true, stored: result.summary.length, summary: result.summary });
	} catch (error) {
		if (error instanceof MemoryError && error.code === 'INVALID_INPUT') return JSON.stringify({ ok: false, error: error.message });
		reportMemoryError(message.client, error, { phase: 'tool', userId: message.author.id, channelId: message.channelId });
		return JSON.stringify({ ok: false, error: 'Memory is unavailable right now; the summary was not stored.' });
	}
}

/** The `remember` tool's name, as the LLM calls it. */
export const REMEMBER_TOOL_NAME = 'remember';

/**
 * The `remember` tool: lets the persona's LLM keep a preference, a note, a tag or a topic note about
 * the member it is talking to (MINIMAL privacy only). Pass its calls to {@link handleRememberTool}.
 */
export const rememberTool = functionTool(
	REMEMBER_TOOL_NAME,
	'Remember something lasting about the user you are talking to: a preference, a fact, a tag, or a titled topic note. Only for things they ' +
		'would want remembered; the user can see and delete it with /session.',
	RememberToolSchema
);

/**
 * Runs one call of `remember` for the author of `message`. Returns the JSON text to send back to the
 * LLM: `{ "ok": true, … }`, or `{ "ok": false, "error": "…" }` (for example when the member's privacy
 * level keeps no profile). Never throws.
 */
export async function handleRememberTool(args: unknown, message: Message): Promise<string> {
	if (!isReadableMessage(message, 'tool')) return JSON.stringify({ ok: false, error: 'Memory is unavailable right now; nothing was stored.' });
	try {
		const parsed = typeof args === 'string' ? parseJson(args) : args;
		const result = await container.memory.remember(message.author.id, parsed);
		// A topic or a profile note is one more thing `/session forget` offers.
		forgetChoicesChanged(container.memory, message.author.id);
		return JSON.stringify({ ok: true, ...result });
	} catch (error) {
		if (error instanceof MemoryError && (error.code === 'INVALID_INPUT' || error.code === 'PRIVACY_REFUSED'))
			return JSON.stringify({ ok: false, error: error.message });
		reportMemoryError(message.client, error, { phase: 'tool', userId: message.author.id, channelId: message.channelId });
		return JSON.stringify({ ok: false, error: 'Memory is unavailable right now; nothing was stored.' });
	}
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		throw new MemoryError('INVALID_INPUT', 'The tool arguments are not valid JSON; send {"summary": "…"}.');
	}
}
