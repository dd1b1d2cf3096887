import { z } from 'zod';
import { type ContextTier, MAX_VISIBLE_CHANNELS } from './context';
import { iterableOf } from './iterable';
import { IdSchema, ServerIdSchema } from './primitives';

/** The tiers whose lines come from stored messages, in the order a context shows them. */
export const SOURCE_TIERS = ['summary', 'relevant', 'recent'] as const satisfies readonly ContextTier[];

/** A tier whose lines come from stored messages: what `ContextSourceLine.tier` names. */
export type SourceTier = (typeof SOURCE_TIERS)[number];

/** The stored messages one tier of a context drew on in one channel: ids only, never text. */
export const SourceGroupSchema = z.object({
	tier: z.enum(SOURCE_TIERS),
	/** `null` in a DM. */
	serverId: z.string().nullable(),
	channelId: z.string(),
	ids: z.array(z.string())
});

export type SourceGroup = z.output<typeof SourceGroupSchema>;

/**
 * `sources:<userId>:<slot>`: which stored messages the context of one persona reply to the member drew on
 * (records/contextSourceRecords.ts). Ids only; kept for the short-term TTL; erased with the member.
 */
export const ContextSourcesRecordSchema = z.object({
	/** The persona's reply the context was built for. */
	replyId: z.string(),
	/** Where the reply was posted; `serverId` is `null` in a DM. */
	serverId: z.string().nullable(),
	channelId: z.string(),
	/** When the context was built. */
	at: z.number(),
	groups: z.array(SourceGroupSchema),
	/** Source ids left out of the record past its bound. */
	omitted: z.number()
});

export type ContextSourcesRecord = z.output<typeof ContextSourcesRecordSchema>;

/**
 * The member asking what a persona's reply drew on (`memory.contextSources`, the What did you remember? command), where
 * the reply is.
 */
export const ContextSourcesViewerSchema = z.object({
	/** The member who asks. */
	userId: IdSchema,
	/** Where the reply is: `null` in a DM. */
	serverId: ServerIdSchema.nullable(),
	channelId: IdSchema,
	/**
	 * Channels of that server the member can view now. When given, lines from any other channel of it are counted, not
	 * shown. The Sapphire layer always passes it.
	 */
	visibleChannelIds: (iterableOf(IdSchema, MAX_VISIBLE_CHANNELS, 'channel ids') as z.ZodType<string[], Iterable<string>>).optional()
});

/** The member asking what a persona's reply drew on, where the reply is, as `contextSources` takes them. */
export type ContextSourcesViewer = z.input<typeof ContextSourcesViewerSchema>;

/** The viewer as checked (`visibleChannelIds` read into an array). */
export type ParsedContextSourcesViewer = z.output<typeof ContextSourcesViewerSchema>;

/** One stored message a reply's context drew on, as the asking member may see it. */
export interface ContextSourceLine {
	/** The tier of the context the message was shown in. */
	tier: SourceTier;
	/** The message's id (Discord's, where the host gave it). */
	messageId: string;
	/** Where the message was written; `null` in a DM. */
	serverId: string | null;
	/** The channel (or thread) it was written in. */
	channelId: string;
	/** A member's message, or a persona's. */
	role: 'user' | 'persona';
	/** Who wrote it: a member's id, or the persona's. */
	authorId?: string;
	/** The author's display name, when one was given. */
	authorName?: string;
	/** The text memory holds now (an edit on Discord changed it there too). */
	text: string;
	/** When it was written (epoch milliseconds). */
	ts: number;
	/** Whether the asking member may forget it (`forgetMessage`): their own message, or a persona's reply to them. */
	own: boolean;
}

/** What `contextSources` answers: the lines a reply's context drew on that the member may see, and how many they may not. */
export interface ContextSources {
	/**
	 * Whether memory kept what that reply's context drew on: not once the short-term TTL has passed, after the member's
	 * clear or erasure, for a reply memory never built a context for, or one pushed out by their newer replies.
	 */
	kept: boolean;
	/** When the context was built (when kept). */
	builtAt?: number;
	/** Per tier in the context's order (summary, relevant, recent), oldest first within a tier. */
	lines: ContextSourceLine[];
	/** Lines from channels the member cannot view now, and other members' messages from elsewhere: counted, not shown. */
	hidden: number;
	/** Lines whose message memory no longer holds (deleted, forgotten, expired, or its author chose FULL). */
	gone: number;
	/** Lines past what the record keeps of a very large context: neither read nor shown. */
	omitted: number;
}
