import { container } from '@sapphire/framework';
import type { GatewayMessageDeleteBulkDispatchData, GatewayMessageDeleteDispatchData, GatewayMessageUpdateDispatchData } from 'discord.js';
import type { MessagesChange } from '../engine';
import { reportMemoryError } from './report';

/**
 * The plugin reads edits and deletions from the gateway's packets, not from discord.js's events: those
 * are emitted only for messages in its cache (or with partials enabled), and a message the bot captured
 * before a restart is in no cache. A packet names the message by id, which is all memory needs.
 */

/** The member a DM channel is with, when discord.js knows the channel; else the engine finds it from the channel. */
function dmMember(channelId: string): string | undefined {
	const channel = container.client.channels.cache.get(channelId);
	return channel && 'recipientId' in channel && typeof channel.recipientId === 'string' ? channel.recipientId : undefined;
}

function where(channelId: string, guildId: string | undefined, authorId?: string): Pick<MessagesChange, 'serverId' | 'channelId' | 'userId'> {
	if (guildId) return { serverId: guildId, channelId };
	const userId = dmMember(channelId) ?? (authorId && authorId !== container.client.user?.id ? authorId : undefined);
	return { serverId: null, channelId, ...(userId ? { userId } : {}) };
}

/** `MESSAGE_DELETE` and `MESSAGE_DELETE_BULK`, as the engine's change. */
export function deletionChange(data: GatewayMessageDeleteDispatchData | GatewayMessageDeleteBulkDispatchData): MessagesChange {
	const messageIds = 'ids' in data ? data.ids : [data.id];
	return { ...where(data.channel_id, data.guild_id), messageIds, kind: 'deleted' };
}

/**
 * `MESSAGE_UPDATE`, as the engine's change; null when the packet changes nothing memory holds. Discord
 * also sends an update when a link's embed loads or a message is pinned: only an edit carries an edit
 * time and its content.
 */
export function editChange(data: GatewayMessageUpdateDispatchData): MessagesChange | null {
	if (!data.edited_timestamp || typeof data.content !== 'string') return null;
	return { ...where(data.channel_id, data.guild_id, data.author?.id), messageIds: [data.id], kind: 'edited', texts: { [data.id]: data.content } };
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
