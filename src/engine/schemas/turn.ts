import { z } from 'zod';
import { IdSchema, InputTextSchema, MessageIdSchema, PersonaIdSchema, ServerIdSchema, TimeSchema } from './primitives';

/** How much of a member the memory keeps. */
export enum PrivacyLevel {
	/** Captured; profile and topic notes may be stored and injected. */
	MINIMAL = 0,
	/** Conversation captured; no profile or topic notes. */
	PARTIAL = 1,
	/** Invisible: never captured, removed from any history before it is stored. */
	FULL = 2
}

/** One message of the history the bot used for a turn. */
export const TurnMessageSchema = z.object({
	/** `user` or `persona`; a message of any other role (a system prompt, a tool result) is left out of memory. */
	role: z.string(),
	authorId: IdSchema.optional(),
	authorName: z.string().max(200).optional(),
	text: InputTextSchema,
	messageId: MessageIdSchema.optional(),
	/** Milliseconds since the epoch; the turn's time when missing. */
	timestamp: TimeSchema.optional()
});

export type TurnMessage = z.input<typeof TurnMessageSchema>;

/** One persona reply that Discord accepted. */
export const TurnResponseSchema = z.object({
	text: InputTextSchema,
	personaId: PersonaIdSchema.nullish(),
	personaLineageId: IdSchema.nullish(),
	personaName: z.string().max(200).optional(),
	messageId: MessageIdSchema.optional()
});

export type TurnResponse = z.input<typeof TurnResponseSchema>;

/** One finished generation turn, as the host bot saw it. */
export const MemoryTurnSchema = z.object({
	userId: IdSchema,
	userName: z.string().max(200).optional(),
	/** Wins over the level stored with `setUserSettings`. */
	privacyLevel: z.enum(PrivacyLevel).optional(),
	/** `null` in a DM. */
	serverId: ServerIdSchema.nullable(),
	channelId: IdSchema,
	parentChannelId: IdSchema.nullish(),
	history: z.array(TurnMessageSchema).max(1000),
	responses: z.array(TurnResponseSchema).max(100),
	isStopResponse: z.boolean().optional(),
	/** Milliseconds since the epoch; the engine clock when missing. */
	timestamp: TimeSchema.optional()
});

export type MemoryTurn = z.input<typeof MemoryTurnSchema>;

/** Why `recordTurn` wrote nothing. */
export const SKIP_REASONS = ['stop-response', 'empty-history', 'privacy-full', 'no-response'] as const;

export type SkipReason = (typeof SKIP_REASONS)[number];

/** What `recordTurn` did. */
export interface RecordTurnResult {
	written: boolean;
	skippedReason?: SkipReason;
	/** The short-term keys written. */
	keys: string[];
}
