import type { Message } from 'discord.js';

/**
 * The member who wrote a message, as Discord says: its author, unless a bot or a webhook sent it (a persona's reply, a proxy
 * bot's message), whose author no member is. Memory checks a persona's reply against what it stored, never against this.
 */
export function discordAuthorOf(message: Message): string | undefined {
	return message.webhookId === null && !message.author.bot ? message.author.id : undefined;
}
