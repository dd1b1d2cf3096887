import { container } from '@sapphire/framework';
import type { Message } from 'discord.js';
import { z } from 'zod';
import { MemoryError } from '../engine/errors';
import { ShortTermMemoryToolSchema } from '../engine/summary';
import { MemoryEvents } from './events';
import type { PersonaIdentity } from './turn';

/** The tool's name, as the LLM calls it. */
export const SHORT_TERM_MEMORY_TOOL_NAME = 'update_short_term_memory';

/**
 * The `update_short_term_memory` tool in the OpenAI-compatible `tools` format, its JSON schema
 * generated from zod. Offer it to the persona's LLM; pass its calls to {@link handleShortTermMemoryTool}.
 */
export const shortTermMemoryTool = Object.freeze({
	type: 'function' as const,
	function: {
		name: SHORT_TERM_MEMORY_TOOL_NAME,
		description:
			'Replace the short-term memory of this conversation with a new summary. Call it when asked to refresh memory, or when something worth remembering happened. At most once per reply.',
		parameters: z.toJSONSchema(ShortTermMemoryToolSchema)
	}
});

/**
 * Runs one call of `update_short_term_memory` for a reply to `message`. Returns the JSON text to send
 * back to the LLM as the tool result: `{ "ok": true, … }` or `{ "ok": false, "error": "…" }`. Never throws.
 * @example
 * const result = await handleShortTermMemoryTool(call.function.arguments, message, { id: 'sol' });
 * messages.push({ role: 'tool', tool_call_id: call.id, content: result });
 */
export async function handleShortTermMemoryTool(args: unknown, message: Message, persona: PersonaIdentity = {}): Promise<string> {
	try {
		const parsed = typeof args === 'string' ? parseJson(args) : args;
		const summary = parsed && typeof parsed === 'object' ? (parsed as { summary?: unknown }).summary : undefined;
		const channel = message.channel;
		const result = await container.memory.updateShortTermMemory(
			{
				userId: message.author.id,
				serverId: message.guildId,
				channelId: message.channelId,
				parentChannelId: channel.isThread() ? channel.parentId : null,
				personaId: persona.id ?? null,
				personaLineageId: persona.lineageId ?? null,
				turnId: message.id
			},
			summary
		);
		return JSON.stringify({ ok: true, stored: result.summary.length, summary: result.summary });
	} catch (error) {
		if (error instanceof MemoryError && error.code === 'INVALID_INPUT') return JSON.stringify({ ok: false, error: error.message });
		message.client.emit(MemoryEvents.Error, error, { phase: 'tool', userId: message.author.id, channelId: message.channelId });
		return JSON.stringify({ ok: false, error: 'Memory is unavailable right now; the summary was not stored.' });
	}
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		throw new MemoryError('INVALID_INPUT', 'The tool arguments are not valid JSON; send {"summary": "…"}.');
	}
}
