import { z } from 'zod';
import { TimeSchema } from './primitives';

/*
 * The shapes the engine stores, and how a stored value is read: a value written by a bug, a hand edit or
 * another schema version is never trusted (see store/storedValues.ts). Where a field may be wrong on its
 * own, `.catch` reads it as its empty value, and an array or record drops only its broken items: one
 * damaged part costs what it held, never the whole value.
 */

/** The items of an array that match `item` (the others dropped); a value that is not an array fails. */
function validItems<T extends z.ZodType>(item: T) {
	return z.array(z.unknown()).transform((items) =>
		items.flatMap((value) => {
			const parsed = item.safeParse(value);
			return parsed.success ? [parsed.data as z.output<T>] : [];
		})
	);
}

/** The entries of a record whose values match `value` (the others dropped); a value that is not an object fails. */
export function validEntries<T extends z.ZodType>(value: T) {
	return z.record(z.string(), z.unknown()).transform((record) => {
		const kept: Record<string, z.output<T>> = {};
		for (const [key, field] of Object.entries(record)) {
			const parsed = value.safeParse(field);
			if (parsed.success) kept[key] = parsed.data as z.output<T>;
		}
		return kept;
	});
}

const Ids = z.array(z.string());

/** A message as the store keeps it. */
export const StoredMessageSchema = z.object({
	/** The Discord message id, or `h:<hash>` where the host gave none. */
	id: z.string().min(1),
	role: z.enum(['user', 'persona']),
	authorId: z.string().optional(),
	authorName: z.string().optional(),
	text: z.string(),
	/** Milliseconds since the epoch. */
	ts: TimeSchema,
	personaId: z.string().optional(),
	/** On a persona reply: the id of the member message it answered, so the reply goes when that message is deleted. */
	replyTo: z.string().optional(),
	/** On a persona reply: the member whose turn it answered, so the reply goes when that member erases their memory. */
	replyToAuthorId: z.string().optional()
});

/** One message as a short-term entry or an archive stores it (`inspectChannel` shows them). */
export type StoredMessage = z.output<typeof StoredMessageSchema>;

/**
 * One line of a scope's digest (`foldIntoDigest`): a hard event kept as it was said, or a count of
 * the small talk and acknowledgements around it.
 */
export const DigestLineSchema = z.object({
	/** `Maya: we meet on June 3 at Luigi's` or `(4 short replies: ok ×2, lol, 👍)`: one line, without its time. */
	text: z.string(),
	/** The messages the line stands for, oldest first; every message folded is cited by exactly one line. */
	sourceIds: Ids,
	/** When its first message was written (milliseconds since the epoch). */
	ts: TimeSchema,
	/**
	 * When its newest message was written, when it stands for more than one: a count line may count messages
	 * written after lines that follow it. Absent on lines of one message and on lines stored before it existed.
	 */
	lastTs: TimeSchema.optional(),
	kind: z.enum(['event', 'collapsed']),
	/** Who wrote those messages (member or persona ids), so a FULL or erased member's lines can be left out. */
	authorIds: Ids.optional()
});

/** One line of an entry's digest: a message kept as said, or several collapsed into one (docs/summaries.md). */
export type DigestLine = z.output<typeof DigestLineSchema>;

/**
 * A summary an LLM wrote in the background from the messages the digest cites. Every line of it cited
 * its sources and together they covered all of them, or it would not have been stored.
 */
export const BackgroundSummarySchema = z.object({
	/** One fact per line, citations removed. */
	text: z.string(),
	/** The message ids it was built from, all cited. */
	sourceIds: Ids,
	/** The authors of the archived sources, so erasure finds the summaries built from a member's words. */
	authorIds: Ids,
	/** The newest digest line it covers (milliseconds since the epoch): later lines are served after it. */
	coveredThrough: z.number(),
	model: z.string(),
	inputTokens: z.number(),
	outputTokens: z.number(),
	/** From `MEMORY_LLM_PRICE_INPUT_PER_MTOK` and `MEMORY_LLM_PRICE_OUTPUT_PER_MTOK`. */
	costUsd: z.number(),
	/** Milliseconds since the epoch. */
	createdAt: z.number(),
	/** A cited message was edited or deleted since: not served until rebuilt. */
	stale: z.boolean()
});

/** An entry's summary written by the background summarizer, with the messages it cites (docs/summaries.md). */
export type BackgroundSummary = z.output<typeof BackgroundSummarySchema>;

/** One short-term memory entry: the recent messages of one scope. */
export const ShortTermEntrySchema = z.object({
	scope: z.enum(['user', 'server']),
	userId: z.string().nullable(),
	/** `"DM"` in DMs. */
	serverId: z.string(),
	channelId: z.string(),
	parentChannelId: z.string().nullable().catch(null),
	personaId: z.string().nullable(),
	lineageId: z.string().nullable().catch(null),
	messages: validItems(StoredMessageSchema),
	summary: z.string().nullable().catch(null),
	categories: z.record(z.string(), z.string()).nullable().catch(null),
	lastUpdated: TimeSchema,
	/** Turns since the summary was last refreshed. */
	turnsSinceRefresh: z.number().finite().catch(0),
	/** Messages that left the crude window, folded without an LLM; absent on entries stored before digests. */
	digest: validItems(DigestLineSchema).nullish().catch(null),
	/** What the optional background summarizer wrote from the digest's sources (live scopes only). */
	backgroundSummary: BackgroundSummarySchema.optional().catch(undefined)
});

export type ShortTermEntry = z.output<typeof ShortTermEntrySchema>;

/** An id that may be absent (listings written before the field existed leave it out). */
const OptionalId = z
	.string()
	.nullish()
	.transform((id) => id ?? null);

/** What a directory knows of one short-term entry without reading it. */
export const ScopeListingSchema = z.object({
	key: z.string(),
	scope: z.enum(['user', 'server']),
	serverId: z.string(),
	channelId: z.string(),
	parentChannelId: OptionalId,
	personaId: OptionalId,
	lineageId: OptionalId,
	lastUpdated: z.number(),
	expiresAt: z.number()
});

export type ScopeListing = z.output<typeof ScopeListingSchema>;

/** A directory: entry key → listing. A doubtful listing is dropped whole: it decides what surfaces where. */
export const ListingsSchema = validEntries(ScopeListingSchema);

export type Listings = z.output<typeof ListingsSchema>;

/** The head of one scope's archive. */
export const ArchiveHeadSchema = z.object({
	/** Number of chunks; the last one is the one appended to. */
	chunks: z.number().int().min(0),
	/** Messages appended over the archive's life. */
	count: z.number().min(0),
	/** Bumped when messages are removed, so every process drops its cached index. */
	epoch: z.number(),
	/** The oldest chunk still stored: the sweep deletes expired chunks from the front. Absent (0) in heads written before the sweep. */
	first: z.number().int().min(0).optional(),
	/**
	 * True when every marker of the archive says where its message is ({@link ArchiveLocation}), and the chunks each
	 * author's words are in are listed (`archive:<scope>:by:<authorId>`): a message is then found by reading its chunk,
	 * never the archive. Absent in an archive begun before markers held locations, which forgetting reads whole.
	 */
	located: z.literal(true).optional()
});

/**
 * What an archive's marker (`archive:<scope>:seen:<id>`) says of its message: archived there, or archived and taken out
 * since (deleted, or erased: the marker is then its tombstone, so no later turn archives it again); or archived, then
 * taken out by an edit whose new text is not known, so the next turn that carries it archives it again, while the
 * persona's replies to it stay and a later deletion of it must still find them; or, in a located archive, removed.
 */
export const ArchiveMarker = { archived: 1, editedAway: 2, removed: 3 } as const;

/**
 * The marker of a message in a located archive (see `ArchiveHead.located`): the chunk holding it (`c`; absent when an
 * edit took it out, as {@link ArchiveMarker.editedAway}) and the chunks holding the persona's replies to it (`r`), so
 * that deleting it reads those chunks alone. A marker of 3 ({@link ArchiveMarker.removed}) is a tombstone: nothing of
 * the message is left. 1 and 2 are markers of an archive that is not located: where the message is, they do not say.
 */
export const ArchiveLocationSchema = z.strictObject({
	c: z.number().int().min(0).optional(),
	r: z.array(z.number().int().min(0)).optional()
});

export type ArchiveLocation = z.output<typeof ArchiveLocationSchema>;

export type ArchiveHead = z.output<typeof ArchiveHeadSchema>;

/** One chunk of an archive: its messages, oldest first. */
export const ArchiveChunkSchema = validItems(StoredMessageSchema);

/** `archive:<scope>:tombstones`: message id → time of the messages removed whose markers stay until the time is past retention. */
export const TombstonesSchema = validEntries(z.number());

export type Tombstones = z.output<typeof TombstonesSchema>;

/** `archives:<serverId>:<channelId>`: live scope key → when a process last listed its archive there. */
export const ChannelArchiveListingsSchema = validEntries(z.number());

export type ChannelArchiveListings = z.output<typeof ChannelArchiveListingsSchema>;

/** `forgotten:<serverId>:<channelId>`: id of a message deleted on Discord → until when capture leaves it out. */
export const ForgottenMessagesSchema = validEntries(z.number());

export type ForgottenMessages = z.output<typeof ForgottenMessagesSchema>;

/** `left:<serverId>`: user id → when that member left the server and was forgotten there. */
export const LeftMembersSchema = validEntries(z.number());

export type LeftMembers = z.output<typeof LeftMembersSchema>;

/** `purge:server:<serverId>`: the bot was removed from the server at `removedAt`; everything of it goes at `dueAt`. */
export const PendingPurgeSchema = z.object({ removedAt: z.number(), dueAt: z.number() });

export type PendingPurge = z.output<typeof PendingPurgeSchema>;

/** What the author index knows of one author in one live scope (its short-term entry and archive). */
export const AuthorListingSchema = z.object({
	/** Messages of the author the scope's archive took in. */
	count: z.number(),
	/** Time of the author's newest message there, in milliseconds since the epoch. */
	lastTs: z.number()
});

export type AuthorListing = z.output<typeof AuthorListingSchema>;

/** `index:author:<authorId>`: live scope key → listing. */
export const AuthorListingsSchema = validEntries(AuthorListingSchema);

export type AuthorListings = z.output<typeof AuthorListingsSchema>;

/** `sweep:lease`: the process that swept last and when (the engine's clock), so shard processes take turns. */
export const SweepLeaseSchema = z.object({ owner: z.string(), at: z.number() });

export type SweepLease = z.output<typeof SweepLeaseSchema>;

/** `registry:<kind>:<bucket>`: id → 1. */
export const RegistryBucketSchema = z.record(z.string(), z.unknown());
