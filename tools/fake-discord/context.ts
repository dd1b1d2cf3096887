import { GatewayDispatchEvents, MessageFlags } from 'discord.js';
import type { AttachmentStore } from './attachments';
import type { CommandRegistry } from './commands';
import type { FakeGateway } from './gateway/FakeGateway';
import type { InteractionLog } from './interactionLog';
import { buildMessage, messageChanges, type MessageInit } from './messageBuilder';
import type { MessageLog } from './messages';
import type { SnowflakeGenerator } from './snowflakes';
import type { FakeState } from './state';
import type { ApiObject, RecordedFile } from './types';

/** The parts of the fake Discord that REST routes and gateway helpers share. */
export interface FakeContext {
	state: FakeState;
	snowflakes: SnowflakeGenerator;
	messages: MessageLog;
	attachments: AttachmentStore;
	commands: CommandRegistry;
	interactions: InteractionLog;
	gateway: FakeGateway;
	/** `ws://127.0.0.1:PORT/gateway`, known once the server listens. */
	gatewayUrl(): string;
}

/** Where a bot message goes and what it is besides its body. */
export type BotMessageInit = Omit<MessageInit, 'id' | 'author' | 'member' | 'content' | 'embeds' | 'components' | 'attachments' | 'guildId'>;

/**
 * Stores a message the bot sent through REST (a channel message, an interaction reply or follow-up)
 * and, unless it is ephemeral, tells the gateway, as Discord echoes the bot's own messages.
 */
export function createBotMessage(context: FakeContext, init: BotMessageInit, body: ApiObject, files: readonly RecordedFile[]): ApiObject {
	const { state } = context;
	const channel = state.findChannel(init.channelId);
	const guildId = channel?.guild_id ? String(channel.guild_id) : null;
	const member = guildId ? state.memberWithoutUser(guildId, String(state.botUser.id)) : undefined;
	const message = buildMessage(
		{
			...init,
			id: context.snowflakes.next(),
			author: state.botUser,
			guildId,
			...(member ? { member } : {}),
			attachments: context.attachments.resolve(body.attachments, files)
		},
		(id) => state.findUser(id)
	);
	Object.assign(
		message,
		messageChanges(body, (id) => state.findUser(id))
	);
	if (body.nonce !== undefined) message.nonce = body.nonce;
	context.messages.add(message);
	if (!isEphemeral(message)) context.gateway.broadcast(GatewayDispatchEvents.MessageCreate, message);
	return message;
}

/** Applies an edit body to a stored message (a deferred reply stops loading) and tells the gateway. */
export function editBotMessage(context: FakeContext, messageId: string, body: ApiObject, files: readonly RecordedFile[]): ApiObject | undefined {
	const message = context.messages.find(messageId);
	if (!message) return undefined;
	const changes = messageChanges(body, (id) => context.state.findUser(id));
	if (body.attachments !== undefined || files.length) {
		changes.attachments = context.attachments.resolve(body.attachments, files, message.attachments as ApiObject[]);
	}
	// Ephemerality is fixed at creation; an edit only drops the loading state and may add display flags.
	changes.flags = (Number(message.flags ?? 0) & ~MessageFlags.Loading) | (Number(body.flags ?? 0) & ~MessageFlags.Ephemeral);
	const edited = context.messages.update(messageId, changes)!;
	if (!isEphemeral(edited)) context.gateway.broadcast(GatewayDispatchEvents.MessageUpdate, edited);
	return edited;
}

/** Deletes a stored message and tells the gateway. */
export function deleteBotMessage(context: FakeContext, messageId: string): boolean {
	const message = context.messages.find(messageId);
	if (!message || !context.messages.remove(messageId)) return false;
	if (!isEphemeral(message)) {
		context.gateway.broadcast(GatewayDispatchEvents.MessageDelete, {
			id: messageId,
			channel_id: message.channel_id,
			...(message.guild_id ? { guild_id: message.guild_id } : {})
		});
	}
	return true;
}

export function isEphemeral(message: ApiObject): boolean {
	return (Number(message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
}
