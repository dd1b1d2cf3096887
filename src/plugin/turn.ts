import type { Collection, Message } from 'discord.js';
import type { MemoryTurn, PrivacyLevel, TurnMessage } from '../engine';
import { locationOf, type PersonaIdentity } from './location';

/** What the host has after a generation turn, as discord.js objects. */
export interface TurnFromMessagesInput {
	/** The message that triggered the generation. */
	trigger: Message;
	/** The history the bot gave the LLM (fetched messages), in any order; the trigger may be in it. */
	history: Iterable<Message> | Collection<string, Message>;
	/** The persona messages Discord accepted. */
	responses: Iterable<Message>;
	persona?: PersonaIdentity;
	/** When the host resolves privacy itself. */
	privacyLevel?: PrivacyLevel;
	isStopResponse?: boolean;
	/**
	 * Tells persona messages from member messages in the history.
	 * @default a message of the bot's own account, or of a webhook the bot's application owns, is the persona's; any other
	 * bot's or webhook's (a proxy webhook a member's bot made, another bot) is a member's, marked `(member)` when its name
	 * reads as a persona's
	 */
	isPersona?: (message: Message) => boolean;
	/**
	 * Which persona wrote a persona message of the history, so that a reply stored last turn keeps the
	 * persona's id and name when it comes back in this turn's history.
	 * @default the bot account's own messages are `persona`'s; other persona messages keep their author
	 */
	personaOf?: (message: Message) => PersonaIdentity | null | undefined;
}

/** Whether the bot itself wrote `message`: through its own account, or a webhook its application owns. */
function ownMessage(message: Message): boolean {
	const { client } = message;
	if (message.webhookId === null) return message.author.id === client.user?.id;
	const application = client.application?.id ?? client.user?.id;
	return application !== undefined && message.applicationId === application;
}

/**
 * Builds the `MemoryTurn` for `MemoryEvents.TurnCompleted` from discord.js objects, so that a host
 * never assembles ids by hand.
 * @example
 * client.emit(
 * 	MemoryEvents.TurnCompleted,
 * 	turnFromMessages({ trigger: message, history: fetched, responses: [sent], persona: { id: 'sol', name: 'Sol' } })
 * );
 */
export function turnFromMessages(input: TurnFromMessagesInput): MemoryTurn {
	const { trigger } = input;
	const isPersona = input.isPersona ?? ownMessage;
	const personaOf =
		input.personaOf ??
		((message: Message) => (message.webhookId === null && message.author.id === message.client.user?.id ? input.persona : undefined));
	const { userId, serverId, channelId, parentChannelId } = locationOf(trigger);
	const seen = new Set<string>();
	const history: TurnMessage[] = [];
	for (const message of [...historyMessages(input.history), trigger].sort((a, b) => a.createdTimestamp - b.createdTimestamp)) {
		if (seen.has(message.id)) continue;
		seen.add(message.id);
		const persona = isPersona(message);
		// Responses are stored under the persona's id and name; the same message must not come back as the bot account's.
		const speaker = persona ? personaOf(message) : undefined;
		history.push({
			role: persona ? 'persona' : 'user',
			authorId: speaker?.id ?? message.author.id,
			authorName: speaker?.name ?? message.member?.displayName ?? message.author.displayName,
			text: message.content,
			messageId: message.id,
			timestamp: message.createdTimestamp
		});
	}
	return {
		userId,
		userName: trigger.member?.displayName ?? trigger.author.displayName,
		privacyLevel: input.privacyLevel,
		serverId,
		channelId,
		parentChannelId,
		history,
		responses: [...input.responses].map((message) => ({
			text: message.content,
			personaId: input.persona?.id ?? null,
			personaLineageId: input.persona?.lineageId ?? null,
			personaName: input.persona?.name ?? message.member?.displayName ?? message.author.displayName,
			messageId: message.id
		})),
		isStopResponse: input.isStopResponse ?? false,
		timestamp: Date.now()
	};
}

function historyMessages(history: TurnFromMessagesInput['history']): Message[] {
	return 'values' in history && typeof history.values === 'function'
		? [...(history as Collection<string, Message>).values()]
		: [...(history as Iterable<Message>)];
}
