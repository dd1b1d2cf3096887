import { z } from 'zod';
import { iterableOf } from './iterable';
import { IdSchema, PersonaIdSchema, ServerIdSchema } from './primitives';

/** Who is talking to which persona, and where: the conversation a context or a summary belongs to. */
export const ConversationLocationSchema = z.object({
	userId: IdSchema,
	/** `null` in a DM. */
	serverId: ServerIdSchema.nullable(),
	channelId: IdSchema,
	parentChannelId: IdSchema.nullish(),
	personaId: PersonaIdSchema.nullish(),
	personaLineageId: IdSchema.nullish()
});

export type ConversationLocation = z.input<typeof ConversationLocationSchema>;

/**
 * The largest token budget a context is built to (docs/configuration.md): a request's larger `tokenBudget` is served as
 * this (a host may pass its model's window), and `MEMORY_CONTEXT_TOKEN_BUDGET` accepts no more. Past it a context would
 * take longer to build than a reply may wait (a budget of 1,000,000 took over a second).
 */
export const MAX_CONTEXT_TOKEN_BUDGET = 16_000;
/** Characters of a query the search reads (Discord's longest message); the rest is ignored (docs/context.md, "Limits"). */
export const MAX_QUERY_CHARS = 4_000;

/** `query` up to {@link MAX_QUERY_CHARS}, never cut between the two halves of a surrogate pair. */
function readQuery(query: string): string {
	if (query.length <= MAX_QUERY_CHARS) return query;
	return query.slice(0, /[\uD800-\uDBFF]/.test(query[MAX_QUERY_CHARS - 1]!) ? MAX_QUERY_CHARS - 1 : MAX_QUERY_CHARS);
}

/** Channels a request may name as visible: far more than a Discord server's channels and threads. */
export const MAX_VISIBLE_CHANNELS = 100_000;

/** What the bot asks for before it generates. */
export const ContextRequestSchema = ConversationLocationSchema.extend({
	/** The user's message; ranks the relevant tier. Its first {@link MAX_QUERY_CHARS} characters are read. */
	query: z.string().max(1_000_000).transform(readQuery),
	/** Defaults to `MEMORY_CONTEXT_TOKEN_BUDGET`; above {@link MAX_CONTEXT_TOKEN_BUDGET}, served as that. */
	tokenBudget: z
		.number()
		.int()
		.min(0)
		.max(1_000_000)
		.transform((budget) => Math.min(budget, MAX_CONTEXT_TOKEN_BUDGET))
		.optional(),
	/**
	 * Channels the asking member can view (an array, a Set, a discord.js Collection's keys), read once, up to
	 * {@link MAX_VISIBLE_CHANNELS}: one more is refused without reading further. When given, memories of any other channel
	 * never surface. The Sapphire layer always passes it.
	 */
	visibleChannelIds: (iterableOf(IdSchema, MAX_VISIBLE_CHANNELS, 'channel ids') as z.ZodType<string[], Iterable<string>>).optional(),
	/** The answering persona's name: a member named like it is labelled `Name (member)` even where the persona has not spoken yet. */
	personaName: z.string().max(200).nullish()
});

/** What the bot asks for before it generates (`buildContext`): who, where, which persona, and the user's message. */
export type ContextRequest = z.input<typeof ContextRequestSchema>;

/** The tiers of a context, in the order they are filled. */
export type ContextTier = 'profile' | 'summary' | 'relevant' | 'recent' | 'nudge';

/** One part of a context. */
export interface ContextBlock {
	/** The tier the block fills. */
	tier: ContextTier;
	/** The block's lines, as they read in the context. */
	text: string;
	/** BPE tokens of `text` (never below the true count). */
	tokens: number;
	/** Message ids the block was built from. */
	sourceIds: string[];
}

/** What `buildContext` returns. */
export interface MemoryContext {
	/** The blocks joined, ready to inject. */
	text: string;
	/** BPE tokens (o200k) of `text`, never above the budget. */
	tokens: number;
	/** The parts of `text`, tier by tier. */
	blocks: ContextBlock[];
}

/** Where a summary from `update_short_term_memory` goes, and which turn wrote it. */
export const SummaryTargetSchema = ConversationLocationSchema.extend({
	/** The triggering message id: one successful call per turn. */
	turnId: z.string().min(1).max(128).optional()
});

/** Where a summary from `update_short_term_memory` goes, and which turn wrote it (`updateShortTermMemory`). */
export type SummaryTarget = z.input<typeof SummaryTargetSchema>;

/** A context request as the engine reads it, once validated. */
export type ParsedContextRequest = z.output<typeof ContextRequestSchema>;
