import { container } from '@sapphire/framework';
import type { Message, PartialMessage } from 'discord.js';
import type { MessagesChange } from '../engine';
import { reportMemoryError } from './report';

/**
 * True when an update changed what a message says. Discord also sends an update when a link's
 * embed loads; that one changes nothing memory holds.
 */
export function isContentEdit(oldMessage: Message | PartialMessage, newMessage: Message | PartialMessage): boolean {
	if (!oldMessage.partial) return oldMessage.content !== newMessage.content;
	// Not cached before: only an edit carries an edit time.
	return newMessage.editedTimestamp !== null;
}

/**
 * The engine's record of messages of one channel edited or deleted on Discord (`memory.messagesChanged`);
 * null when there is nothing to say, or for a DM whose member cannot be told.
 * @example
 * await forwardMessagesChange(messagesChange([message], 'deleted'));
 */
export function messagesChange(messages: readonly (Message | PartialMessage)[], kind: MessagesChange['kind']): MessagesChange | null {
	const first = messages[0];
	if (!first) return null;
	const serverId = first.guildId ?? null;
	if (serverId !== null) return { serverId, channelId: first.channelId, messageIds: messages.map((message) => message.id), kind };
	// A DM's memory is filed under the member the bot talks with.
	const channel = first.channel as Message['channel'] | undefined;
	const recipientId = channel && 'recipientId' in channel ? channel.recipientId : undefined;
	const userId = recipientId ?? messages.find((message) => message.author && !message.author.bot)?.author?.id;
	if (!userId) return null;
	return { serverId: null, channelId: first.channelId, userId, messageIds: messages.map((message) => message.id), kind };
}

/** Tells the engine of a change; a failure is reported as `memoryError`, never thrown. */
export async function forwardMessagesChange(change: MessagesChange | null): Promise<void> {
	if (!change) return;
	try {
		await container.memory.messagesChanged(change);
	} catch (error) {
		reportMemoryError(container.client, error, { phase: 'message-change', userId: change.userId, channelId: change.channelId });
	}
}
