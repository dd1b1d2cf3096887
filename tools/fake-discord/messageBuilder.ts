import { MessageType } from 'discord.js';
import type { ApiObject } from './types';

/** What a message is made of; everything but the ids and author has a default. */
export interface MessageInit {
	id: string;
	channelId: string;
	guildId?: string | null;
	author: ApiObject;
	/** The author's member object without its user, in guilds. */
	member?: ApiObject;
	content?: string;
	embeds?: unknown[];
	components?: unknown[];
	attachments?: unknown[];
	flags?: number;
	/** @default MessageType.Default, or MessageType.Reply when `referenced` is given */
	type?: MessageType;
	/** The message this one replies to. */
	referenced?: ApiObject;
	webhookId?: string;
	applicationId?: string;
	interactionMetadata?: ApiObject;
}

/** Finds a user by id, for mentions. */
export type UserLookup = (id: string) => ApiObject | undefined;

/** A message object as Discord sends it, with the mentions its content makes (`<@id>`, `<@&id>`, `@everyone`). */
export function buildMessage(init: MessageInit, findUser: UserLookup): ApiObject {
	const content = init.content ?? '';
	return {
		id: init.id,
		channel_id: init.channelId,
		...(init.guildId ? { guild_id: init.guildId } : {}),
		author: init.author,
		...(init.member ? { member: init.member } : {}),
		content,
		timestamp: new Date().toISOString(),
		edited_timestamp: null,
		tts: false,
		pinned: false,
		type: init.type ?? (init.referenced ? MessageType.Reply : MessageType.Default),
		flags: init.flags ?? 0,
		embeds: init.embeds ?? [],
		components: init.components ?? [],
		attachments: init.attachments ?? [],
		...mentionsIn(content, findUser),
		...(init.referenced
			? {
					message_reference: { type: 0, message_id: init.referenced.id, channel_id: init.channelId, guild_id: init.guildId ?? undefined },
					referenced_message: init.referenced
				}
			: {}),
		...(init.webhookId ? { webhook_id: init.webhookId } : {}),
		...(init.applicationId ? { application_id: init.applicationId } : {}),
		...(init.interactionMetadata ? { interaction_metadata: init.interactionMetadata } : {})
	};
}

/** The mention fields of a message, from its content. */
export function mentionsIn(content: string, findUser: UserLookup): ApiObject {
	const userIds = new Set([...content.matchAll(/<@!?(\d{15,22})>/g)].map((match) => match[1]!));
	return {
		mentions: [...userIds].map((id) => findUser(id)).filter((user): user is ApiObject => user !== undefined),
		mention_roles: [...new Set([...content.matchAll(/<@&(\d{15,22})>/g)].map((match) => match[1]!))],
		mention_everyone: /@(everyone|here)\b/.test(content)
	};
}

/** The fields of a create or edit body that change what a message shows, with their content mentions. */
export function messageChanges(body: ApiObject, findUser: UserLookup): ApiObject {
	const changes: ApiObject = {};
	for (const field of ['content', 'embeds', 'components', 'poll'] as const) {
		if (body[field] !== undefined) changes[field] = body[field];
	}
	if (typeof body.content === 'string') Object.assign(changes, mentionsIn(body.content, findUser));
	return changes;
}
