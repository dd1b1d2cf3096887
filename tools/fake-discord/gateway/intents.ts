import { GatewayDispatchEvents, GatewayIntentBits } from 'discord.js';
import type { ApiObject } from '../types';

const MESSAGE_EVENTS: ReadonlySet<string> = new Set([
	GatewayDispatchEvents.MessageCreate,
	GatewayDispatchEvents.MessageUpdate,
	GatewayDispatchEvents.MessageDelete
]);

const CONTENT_FIELDS = ['content', 'embeds', 'attachments', 'components', 'poll'] as const;

/**
 * What a connection identified with `intents` receives of an event, as Discord filters it: message
 * events only with GuildMessages (guilds) or DirectMessages (DMs), and without MessageContent a
 * message's content, embeds, attachments and components are emptied unless it is a DM, the bot's
 * own, or mentions the bot. `undefined` means the event is not sent at all.
 */
export function filterForIntents(intents: number, event: string, data: ApiObject, botId: string): ApiObject | undefined {
	if (!MESSAGE_EVENTS.has(event)) return data;
	const needed = data.guild_id ? GatewayIntentBits.GuildMessages : GatewayIntentBits.DirectMessages;
	if ((intents & needed) === 0) return undefined;
	if ((intents & GatewayIntentBits.MessageContent) !== 0 || event === GatewayDispatchEvents.MessageDelete) return data;

	const author = data.author as ApiObject | undefined;
	const mentions = (data.mentions as ApiObject[] | undefined) ?? [];
	if (!data.guild_id || author?.id === botId || mentions.some((user) => user.id === botId)) return data;
	const stripped: ApiObject = { ...data };
	for (const field of CONTENT_FIELDS) {
		if (field in stripped) stripped[field] = field === 'content' ? '' : field === 'poll' ? undefined : [];
	}
	return stripped;
}
