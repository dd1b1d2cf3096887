import type { Message } from 'discord.js';
import type { ConversationLocation } from '../engine';

/** The persona that spoke in a turn. */
export interface PersonaIdentity {
	id?: string | null;
	lineageId?: string | null;
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
