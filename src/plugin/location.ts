import { container } from '@sapphire/framework';
import type { Message } from 'discord.js';
import { type ConversationLocation, MemoryError } from '../engine';
import { reportMemoryError } from './report';

/** The persona that spoke in a turn. */
export interface PersonaIdentity {
	/** The persona's id: each persona has its own memory of a conversation. @default null, the bot's default persona */
	id?: string | null;
	/** The persona's lineage: personas of one lineage share their memories of other channels (docs/context.md). @default null */
	lineageId?: string | null;
	/** The persona's name, as context lines label its replies. */
	name?: string;
}

/** The conversation `message` belongs to: its author, server (or DM), channel, thread parent and persona. */
export function locationOf(message: Message, persona: PersonaIdentity = {}): ConversationLocation {
	const { channel } = message;
	return {
		userId: message.author.id,
		serverId: message.guildId,
		channelId: message.channelId,
		parentChannelId: channel.isThread() ? channel.parentId : null,
		personaId: persona.id ?? null,
		personaLineageId: persona.lineageId ?? null
	};
}

/**
 * Whether `message` is a discord.js Message the helpers can read (its author, channel and client). When it is not, a
 * `MemoryError` (`INVALID_INPUT`) naming what was given is emitted as `memoryError` with `phase`: the helpers that never
 * throw answer as memory being unavailable, and the host learns of its mistake.
 */
export function isReadableMessage(message: unknown, phase: 'context' | 'tool'): message is Message {
	const candidate = message as Partial<Message> | null;
	const readable =
		typeof candidate === 'object' &&
		candidate !== null &&
		typeof candidate.author?.id === 'string' &&
		typeof candidate.channelId === 'string' &&
		typeof candidate.channel?.isThread === 'function' &&
		typeof candidate.client?.emit === 'function';
	if (!readable && container.client) {
		const given =
			message === null
				? 'null'
				: Array.isArray(message)
					? 'an array'
					: typeof message === 'object'
						? 'an object that is not a Message'
						: typeof message;
		reportMemoryError(container.client, new MemoryError('INVALID_INPUT', `message must be a discord.js Message; got ${given}.`), { phase });
	}
	return readable;
}
