import { container } from '@sapphire/framework';
import { ChannelType, type Guild, type GuildBasedChannel, type GuildMember, type Message, PermissionFlagsBits } from 'discord.js';
import type { MemoryContext } from '../engine';
import { isReadableMessage, locationOf } from './location';
import { reportMemoryError } from './report';
import type { PersonaIdentity } from './location';

/** Options of {@link contextForMessage}. */
export interface ContextForMessageOptions {
	/** Defaults to `MEMORY_CONTEXT_TOKEN_BUDGET`. */
	tokenBudget?: number;
	/** The text to rank older messages against. @default the message's content */
	query?: string;
}

/** An empty context, for when memory is unavailable: the reply goes on without it. */
export const EMPTY_CONTEXT: MemoryContext = Object.freeze({ text: '', tokens: 0, blocks: [] }) as MemoryContext;

/**
 * The pre-generation hook: the memory context for a reply to `message` by `persona`. It passes the
 * channels the member can view, so cross-channel memory never shows one they cannot read. It never
 * throws: a failure is emitted as `memoryError` (a store outage once, not per message) and an empty
 * context returned.
 * @example
 * const memory = await contextForMessage(message, { id: 'sol' });
 * const prompt = `${memory.text}\n\n${message.content}`;
 */
export async function contextForMessage(
	message: Message,
	persona: PersonaIdentity = {},
	options: ContextForMessageOptions = {}
): Promise<MemoryContext> {
	if (!isReadableMessage(message, 'context')) return EMPTY_CONTEXT;
	try {
		return await container.memory.buildContext({
			...locationOf(message, persona),
			query: options.query ?? message.content,
			tokenBudget: options.tokenBudget,
			visibleChannelIds: visibleChannelIds(message),
			personaName: persona.name
		});
	} catch (error) {
		reportMemoryError(message.client, error, { phase: 'context', userId: message.author.id, channelId: message.channelId });
		return EMPTY_CONTEXT;
	}
}

/** The guild channels (threads included) the author of `message` can view; undefined in DMs (see {@link channelsViewableBy}). */
export function visibleChannelIds(message: Message): string[] | undefined {
	return message.guild ? channelsViewableBy(message.guild, message.member, message.channelId) : undefined;
}

/**
 * The channels of `guild` (threads included) `member` can view; `channelId`, where they are, alone when the member is not
 * known. A private thread counts only when the member is known to be in it or manages threads: View Channel on its parent
 * is not enough, and an unknown membership is treated as none.
 */
export function channelsViewableBy(guild: Guild, member: GuildMember | null, channelId: string): string[] {
	if (!member) return [channelId];
	const canView = (channel: GuildBasedChannel) => {
		const permissions = channel.permissionsFor(member);
		if (!permissions?.has(PermissionFlagsBits.ViewChannel)) return false;
		if (channel.type !== ChannelType.PrivateThread) return true;
		return channel.id === channelId || channel.members.cache.has(member.id) || permissions.has(PermissionFlagsBits.ManageThreads);
	};
	return [...guild.channels.cache.values()].filter(canView).map((channel) => channel.id);
}
