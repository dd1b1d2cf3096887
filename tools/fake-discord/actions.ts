import { ApplicationCommandType, ChannelType, ComponentType, GatewayDispatchEvents, InteractionType } from 'discord.js';
import { nestOptions, resolveOptions, type CommandOptionsInput } from './commandOptions';
import type { FakeContext } from './context';
import { buildInteraction, type BuiltInteraction, type InteractionActor } from './interactionPayloads';
import { buildMessage } from './messageBuilder';
import type { ApiObject, UserRef } from './types';

/** A message a user sends. */
export interface UserMessageInput {
	/** A guild channel, thread or DM channel the fake knows; omit it for the author's DM with the bot. */
	channelId?: string;
	/** Checked against the channel's guild when given; the channel decides. */
	guildId?: string;
	author: UserRef;
	content: string;
	/** The message this one replies to. */
	referenceId?: string;
	/** @default a new snowflake */
	id?: string;
	/**
	 * Sends the message through a webhook instead (a proxy bot's, or one the bot's application made): its author is the
	 * webhook, named as given, with no member object; `author` is the user who had it sent, and no member is added for it.
	 */
	webhook?: { id: string; name: string; applicationId?: string };
}

/** A slash command a user runs. */
export interface SlashCommandInput extends InteractionActor {
	name: string;
	subcommandGroup?: string;
	subcommand?: string;
	options?: CommandOptionsInput;
	/** Checked against the channel's guild when given; the channel decides. */
	guildId?: string;
}

/** A user typing into an option that has autocomplete. */
export interface AutocompleteInput extends SlashCommandInput {
	/** The name of the option being typed into. */
	focused: string;
}

/** A message context-menu command (the Apps menu on a message) a user runs on a message the fake knows. */
export interface MessageCommandInput extends Omit<InteractionActor, 'channelId'> {
	/** The command's name as registered (its English name). */
	name: string;
	/** The message it is run on: its channel is where the interaction happens. */
	messageId: string;
}

/** A user clicking a button of a message the fake knows (one a user or the bot sent, ephemeral replies included). */
export interface ClickButtonInput extends Omit<InteractionActor, 'channelId'> {
	customId: string;
	messageId: string;
}

/** A user picking values in a select menu of a message the fake knows. */
export interface SelectMenuInput extends ClickButtonInput {
	values: string[];
	/** @default ComponentType.StringSelect */
	componentType?: ComponentType;
}

/** An interaction the fake dispatched; wait for the bot's answer with `fake.waitForAnswer(id)`. */
export interface FakeInteraction {
	id: string;
	token: string;
	/** The INTERACTION_CREATE payload as dispatched. */
	payload: ApiObject;
}

/** Dispatches MESSAGE_CREATE for a user's message and keeps it for history. */
export function sendUserMessage(context: FakeContext, input: UserMessageInput): ApiObject {
	const { state } = context;
	const sender = state.user(input.author);
	const channel = input.channelId ? state.findChannel(input.channelId) : state.dmChannelWith(String(sender.id));
	if (!channel) throw new Error(`fake Discord: unknown channel ${input.channelId}`);
	const guildId = channel.guild_id ? String(channel.guild_id) : null;
	if (input.guildId && input.guildId !== guildId) throw new Error(`fake Discord: channel ${channel.id} is not in guild ${input.guildId}`);
	const { webhook } = input;
	// A webhook's message is authored by the webhook itself, as Discord sends it: a bot user with the webhook's id and name.
	const author = webhook ? { id: webhook.id, username: webhook.name, discriminator: '0000', avatar: null, bot: true } : sender;
	if (guildId && !webhook) state.ensureMember(guildId, String(author.id));
	const member = guildId && !webhook ? state.memberWithoutUser(guildId, String(author.id)) : undefined;
	const referenced = input.referenceId ? context.messages.find(input.referenceId) : undefined;
	if (input.referenceId && !referenced) throw new Error(`fake Discord: unknown message ${input.referenceId} to reply to`);
	const message = buildMessage(
		{
			id: input.id ?? context.snowflakes.next(),
			channelId: String(channel.id),
			guildId,
			author,
			...(member ? { member } : {}),
			content: input.content,
			referenced,
			...(webhook ? { webhookId: webhook.id, ...(webhook.applicationId ? { applicationId: webhook.applicationId } : {}) } : {})
		},
		(id) => state.findUser(id)
	);
	context.messages.add(message);
	context.gateway.dispatch(GatewayDispatchEvents.MessageCreate, { ...message, channel_type: channel.type ?? ChannelType.GuildText });
	return message;
}

/** Dispatches a chat-input command (type 2), or its autocomplete (type 4) when an option has the focus. */
export function runCommand(context: FakeContext, input: SlashCommandInput & { focused?: string }): FakeInteraction {
	const channelGuild = input.channelId ? context.state.findChannel(input.channelId)?.guild_id : undefined;
	if (input.guildId && input.guildId !== channelGuild) throw new Error(`fake Discord: channel ${input.channelId} is not in guild ${input.guildId}`);
	const guildId = channelGuild ? String(channelGuild) : undefined;
	const definition = context.commands.findByName(input.name, guildId);
	const { options, leaves } = nestOptions({ ...input, definition });
	const type = input.focused ? InteractionType.ApplicationCommandAutocomplete : InteractionType.ApplicationCommand;
	return dispatchInteraction(context, type, input, (built) => {
		const resolved = resolveOptions(leaves, context.state, built.guildId, built.channelId);
		return {
			id: definition?.id ?? context.snowflakes.next(),
			name: input.name,
			type: ApplicationCommandType.ChatInput,
			...(options.length ? { options } : {}),
			...(resolved ? { resolved } : {}),
			...(definition?.guild_id ? { guild_id: definition.guild_id } : {})
		};
	});
}

/**
 * Dispatches a message context-menu command (INTERACTION_CREATE type 2, `data.type` 3) on a message the fake knows, as
 * Discord sends it: the message as `target_id` and in `resolved.messages`.
 */
export function runMessageCommand(context: FakeContext, input: MessageCommandInput): FakeInteraction {
	const message = context.messages.find(input.messageId);
	if (!message) throw new Error(`fake Discord: unknown message ${input.messageId}; a message command runs on a message the fake has seen`);
	const channelId = String(message.channel_id);
	const guildId = context.state.findChannel(channelId)?.guild_id;
	const definition = context.commands.findByName(input.name, guildId ? String(guildId) : undefined, ApplicationCommandType.Message);
	return dispatchInteraction(context, InteractionType.ApplicationCommand, { ...input, channelId }, () => ({
		id: definition?.id ?? context.snowflakes.next(),
		name: input.name,
		type: ApplicationCommandType.Message,
		target_id: input.messageId,
		resolved: { messages: { [input.messageId]: message } },
		...(definition?.guild_id ? { guild_id: definition.guild_id } : {})
	}));
}

/** Dispatches a message component interaction (type 3) on a message the fake knows. */
export function useComponent(context: FakeContext, input: ClickButtonInput, data: ApiObject): FakeInteraction {
	const message = context.messages.find(input.messageId);
	if (!message) throw new Error(`fake Discord: unknown message ${input.messageId}; a component can only be used on a message the fake has seen`);
	const actor = { ...input, channelId: String(message.channel_id) };
	return dispatchInteraction(
		context,
		InteractionType.MessageComponent,
		actor,
		() => ({ custom_id: input.customId, ...data }),
		{ message },
		input.messageId
	);
}

function dispatchInteraction(
	context: FakeContext,
	type: InteractionType,
	actor: InteractionActor,
	dataFor: (built: BuiltInteraction) => ApiObject,
	extra: ApiObject = {},
	componentMessageId?: string
): FakeInteraction {
	const built = buildInteraction(context.state, context.snowflakes, type, actor, extra);
	built.payload.data = dataFor(built);
	context.interactions.add({
		id: built.id,
		token: built.token,
		type,
		payload: built.payload,
		channelId: built.channelId,
		guildId: built.guildId,
		dispatchedAt: Date.now(),
		...(componentMessageId ? { componentMessageId } : {})
	});
	context.gateway.dispatch(GatewayDispatchEvents.InteractionCreate, built.payload);
	return { id: built.id, token: built.token, payload: built.payload };
}

/** The `data` of a button click. */
export function buttonData(): ApiObject {
	return { component_type: ComponentType.Button };
}

/** The `data` of a select menu pick. */
export function selectData(input: SelectMenuInput): ApiObject {
	return { component_type: input.componentType ?? ComponentType.StringSelect, values: input.values };
}
