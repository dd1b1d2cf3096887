import type { Message, MessageContextMenuCommandInteraction } from 'discord.js';

/**
 * The member who wrote a message, as Discord says: its author, unless a bot or a webhook sent it (a persona's reply, a proxy
 * bot's message), whose author no member is. Memory checks a persona's reply against what it stored, never against this.
 */
export function discordAuthorOf(message: Message): string | undefined {
	return message.webhookId === null && !message.author.bot ? message.author.id : undefined;
}

/** What a message command asks memory about: the message it was run on, who runs it, and who Discord says wrote it. */
export function messageRequest(interaction: MessageContextMenuCommandInteraction) {
	const { targetMessage } = interaction;
	return {
		serverId: interaction.guildId,
		channelId: targetMessage.channelId,
		messageId: targetMessage.id,
		userId: interaction.user.id,
		authorId: discordAuthorOf(targetMessage)
	};
}
