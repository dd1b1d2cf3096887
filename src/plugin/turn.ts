import type { Collection, Message } from 'discord.js';
import { z } from 'zod';
import { iterableOf, MAX_TURN_HISTORY, MAX_TURN_RESPONSES, type MemoryTurn, parseInput, PrivacyLevel, readInput, type TurnMessage } from '../engine';
import { locationOf, type PersonaIdentity } from './location';

/** What the host has after a generation turn, as discord.js objects. */
export interface TurnFromMessagesInput {
	/** The message that triggered the generation. */
	trigger: Message;
	/** The history the bot gave the LLM (fetched messages), in any order; the trigger may be in it. At most 1,000 messages. */
	history: Iterable<Message> | Collection<string, Message>;
	/** The persona messages Discord accepted; at most 100. */
	responses: Iterable<Message>;
	/** The persona that answered. @default the bot's default persona (no id) */
	persona?: PersonaIdentity;
	/** When the host resolves privacy itself. */
	privacyLevel?: PrivacyLevel;
	/** True when the persona was stopped before it answered: the turn is then skipped, with nothing written. @default false */
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

const isObject = (value: unknown) => typeof value === 'object' && value !== null;
const isFunction = (value: unknown) => typeof value === 'function';
const MessageSchema = z.custom<Message>(isObject, 'expected a discord.js Message');

/**
 * What {@link turnFromMessages} takes, read once: its lists at most as long as a turn may be (a longer one is refused
 * without reading further), a Collection by its values.
 */
const TurnFromMessagesInputSchema = z.object({
	trigger: MessageSchema,
	history: z.preprocess(
		(history) => (history instanceof Map ? history.values() : history),
		iterableOf(MessageSchema, MAX_TURN_HISTORY, 'history messages')
	),
	responses: iterableOf(MessageSchema, MAX_TURN_RESPONSES, 'responses'),
	persona: z.object({ id: z.string().nullish(), lineageId: z.string().nullish(), name: z.string().optional() }).optional(),
	privacyLevel: z.enum(PrivacyLevel).optional(),
	isStopResponse: z.boolean().optional(),
	isPersona: z.custom<(message: Message) => boolean>(isFunction, 'expected a function').optional(),
	personaOf: z.custom<(message: Message) => PersonaIdentity | null | undefined>(isFunction, 'expected a function').optional()
});

/** `read()`, or an `INVALID_INPUT` naming `field` when reading a message (or the host's callback on it) throws. */
const reading = <T>(field: string, read: () => T): T => readInput(`turnFromMessages ${field}`, undefined, read);

/**
 * Builds the `MemoryTurn` for `MemoryEvents.TurnCompleted` from discord.js objects, so that a host never assembles ids
 * by hand. Throws a `MemoryError` `INVALID_INPUT` naming the field for what is not such a turn: a history of more than
 * 1,000 messages or more than 100 responses (read no further), or a message
 * that cannot be read.
 * @example
 * client.emit(
 * 	MemoryEvents.TurnCompleted,
 * 	turnFromMessages({ trigger: message, history: fetched, responses: [sent], persona: { id: 'sol', name: 'Sol' } })
 * );
 */
export function turnFromMessages(input: TurnFromMessagesInput): MemoryTurn {
	const given = parseInput(TurnFromMessagesInputSchema, input, 'turnFromMessages input');
	const { trigger, persona } = given;
	const isPersona = given.isPersona ?? ownMessage;
	const personaOf =
		given.personaOf ??
		((message: Message) => (message.webhookId === null && message.author.id === message.client.user?.id ? persona : undefined));
	const { userId, serverId, channelId, parentChannelId } = reading('trigger', () => locationOf(trigger));
	const messages = [...given.history.map((message, index) => ({ message, field: `history[${index}]` })), { message: trigger, field: 'trigger' }]
		.map((read) => ({ ...read, at: reading(read.field, () => read.message.createdTimestamp) }))
		.sort((a, b) => a.at - b.at);
	const seen = new Set<string>();
	const history: TurnMessage[] = [];
	for (const { message, field } of messages) {
		const entry = reading(field, (): TurnMessage | null => {
			if (seen.has(message.id)) return null;
			seen.add(message.id);
			const spokenByPersona = isPersona(message);
			// Responses are stored under the persona's id and name; the same message must not come back as the bot account's.
			const speaker = spokenByPersona ? personaOf(message) : undefined;
			return {
				role: spokenByPersona ? 'persona' : 'user',
				authorId: speaker?.id ?? message.author.id,
				authorName: speaker?.name ?? message.member?.displayName ?? message.author.displayName,
				text: message.content,
				messageId: message.id,
				timestamp: message.createdTimestamp
			};
		});
		if (entry) history.push(entry);
	}
	return {
		userId,
		userName: reading('trigger', () => trigger.member?.displayName ?? trigger.author.displayName),
		privacyLevel: given.privacyLevel,
		serverId,
		channelId,
		parentChannelId,
		history,
		responses: given.responses.map((message, index) =>
			reading(`responses[${index}]`, () => ({
				text: message.content,
				personaId: persona?.id ?? null,
				personaLineageId: persona?.lineageId ?? null,
				personaName: persona?.name ?? message.member?.displayName ?? message.author.displayName,
				messageId: message.id
			}))
		),
		isStopResponse: given.isStopResponse ?? false,
		timestamp: Date.now()
	};
}
