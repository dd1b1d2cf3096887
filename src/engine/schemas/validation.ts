import { z } from 'zod';
import { MemoryError } from '../errors';
import { IdSchema } from '../privacy/SettingsRepository';
import { LATEST_TIME } from '../store/storedValues';
import { PrivacyLevel } from './types';

/** Discord's longest message (with Nitro); longer text is cut to this before it is stored. */
export const MAX_MESSAGE_CHARS = 4000;

// Bounded so that every time has a date: a later one would break each context and export that shows it.
const Timestamp = z.number().finite().nonnegative().max(LATEST_TIME, 'a time in milliseconds since the epoch, at most 9999-12-31');
const Text = z.string().max(1_000_000);
/** Message ids only end keys, so a ":" in one is harmless. */
const MessageId = z
	.string()
	.min(1)
	.max(128)
	.regex(/^[\w.:-]+$/, 'only letters, digits, "_", ".", ":" and "-"');

/** Zod schema of a {@link MemoryTurn}; unknown roles are allowed here and dropped by capture. */
export const MemoryTurnSchema = z.object({
	userId: IdSchema,
	userName: z.string().max(200).optional(),
	privacyLevel: z.enum(PrivacyLevel).optional(),
	serverId: IdSchema.nullable(),
	channelId: IdSchema,
	parentChannelId: IdSchema.nullish(),
	history: z
		.array(
			z.object({
				role: z.string(),
				authorId: IdSchema.optional(),
				authorName: z.string().max(200).optional(),
				text: Text,
				messageId: MessageId.optional(),
				timestamp: Timestamp.optional()
			})
		)
		.max(1000),
	responses: z
		.array(
			z.object({
				text: Text,
				personaId: IdSchema.nullish(),
				personaLineageId: IdSchema.nullish(),
				personaName: z.string().max(200).optional(),
				messageId: MessageId.optional()
			})
		)
		.max(100),
	isStopResponse: z.boolean().optional(),
	timestamp: Timestamp.optional()
});

/** Zod schema of a {@link ConversationLocation}. */
export const ConversationLocationSchema = z.object({
	userId: IdSchema,
	serverId: IdSchema.nullable(),
	channelId: IdSchema,
	parentChannelId: IdSchema.nullish(),
	personaId: IdSchema.nullish(),
	personaLineageId: IdSchema.nullish()
});

/** Zod schema of a {@link ContextRequest}. */
export const ContextRequestSchema = ConversationLocationSchema.extend({
	query: z.string().max(1_000_000),
	tokenBudget: z.number().int().min(0).max(1_000_000).optional(),
	// Any iterable of ids (an array, a Set, a discord.js Collection's keys), read once into an array.
	visibleChannelIds: z
		.preprocess((value) => (isIterableObject(value) ? [...value] : value), z.array(IdSchema).max(100_000, 'at most 100000 channels'))
		.optional()
});

function isIterableObject(value: unknown): value is Iterable<unknown> {
	return typeof value === 'object' && value !== null && typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function';
}

/** Parses `value` or rejects with an `INVALID_INPUT` error that says what was wrong. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
	const parsed = schema.safeParse(value);
	if (!parsed.success) throw new MemoryError('INVALID_INPUT', `Invalid ${what}: ${z.prettifyError(parsed.error)}`);
	return parsed.data;
}

/** Zod schema of a {@link StatusLocation}. */
export const StatusLocationSchema = z.object({
	serverId: IdSchema.nullable(),
	channelId: IdSchema,
	personaId: IdSchema.nullish()
});

/** Zod schema of a {@link MessagesChange}; in a DM the member's id says whose scope it is. */
export const MessagesChangeSchema = z
	.object({
		serverId: IdSchema.nullable(),
		channelId: IdSchema,
		userId: IdSchema.optional(),
		messageIds: z.array(MessageId).max(1000),
		kind: z.enum(['edited', 'deleted'])
	})
	.refine((change) => change.serverId !== null || change.userId !== undefined, {
		message: 'a DM change needs the userId of the member the DM is with',
		path: ['userId']
	});
