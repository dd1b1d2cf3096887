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

/** One message of the history the bot used for a turn (see {@link MemoryTurn}). */
export type TurnMessage = z.input<typeof TurnMessageSchema>;

/** One persona reply that Discord accepted. */
export const TurnResponseSchema = z.object({
	text: InputTextSchema,
	personaId: PersonaIdSchema.nullish(),
	personaLineageId: IdSchema.nullish(),
	personaName: z.string().max(200).optional(),
	messageId: MessageIdSchema.optional()
});

/** One persona reply of a turn that Discord accepted (see {@link MemoryTurn}). */
export type TurnResponse = z.input<typeof TurnResponseSchema>;

/**
 * Messages a turn's history may hold; more is refused. Capture reads only the newest {@link RECORDED_HISTORY_MESSAGES}
 * of them.
 */
export const MAX_TURN_HISTORY = 1000;
/** Persona replies a turn may hold; more is refused. */
export const MAX_TURN_RESPONSES = 100;
/**
 * Messages of a turn's history that capture reads: the newest 50 user and persona messages; older ones are left out. What a
 * turn brings to memory is what was said since the bot's previous turn in the channel, which the newest 50 hold unless more
 * passed between two of its turns; the README's bot gives its LLM 10. A longer history is cut, not refused: a bot that
 * passes a whole Discord fetch (up to 100) keeps its turn. Bounded so, a turn of Discord's longest messages holds the event
 * loop less than 20 ms (docs/benchmarks.md, "Hostile input").
 */
export const RECORDED_HISTORY_MESSAGES = 50;

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
	/** In any order; at most {@link MAX_TURN_HISTORY} messages, of which the newest {@link RECORDED_HISTORY_MESSAGES} are read. */
	history: z.array(TurnMessageSchema).max(MAX_TURN_HISTORY),
	responses: z.array(TurnResponseSchema).max(MAX_TURN_RESPONSES),
	isStopResponse: z.boolean().optional(),
	/** Milliseconds since the epoch; the engine clock when missing. */
	timestamp: TimeSchema.optional()
});

/** One finished generation turn, as the host bot saw it: what `recordTurn` takes. */
export type MemoryTurn = z.input<typeof MemoryTurnSchema>;

/** Why `recordTurn` wrote nothing. */
export const SKIP_REASONS = ['stop-response', 'empty-history', 'privacy-full', 'no-response'] as const;

/** Why `recordTurn` wrote nothing: a stop response, a history empty once cleaned, a `FULL` user, or no persona reply. */
export type SkipReason = (typeof SKIP_REASONS)[number];

/** What `recordTurn` did. */
export interface RecordTurnResult {
	/** True when the turn was stored; false when it was skipped. */
	written: boolean;
	/** Why the turn was skipped, when it was. */
	skippedReason?: SkipReason;
	/** The short-term keys written. */
	keys: string[];
}
