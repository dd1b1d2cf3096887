import { z } from 'zod';
import { validEntries } from './stored';
import { IdSchema, InputTextSchema, MessageIdSchema, PersonaIdSchema, ServerIdSchema } from './primitives';
import type { PrivacyLevel } from './turn';

/** A user's long-term profile, as stored. */
export const UserProfileSchema = z.object({
	/** `name: value` facts the user wants kept, e.g. `{ pronouns: 'she/her' }`. */
	preferences: z.record(z.string(), z.string()),
	notes: z.array(z.string()),
	tags: z.array(z.string()),
	/** Milliseconds since the epoch. */
	updatedAt: z.number()
});

/** A user's long-term profile (`getProfile`, `updateProfile`): preferences, notes and tags; MINIMAL users only. */
export type UserProfile = z.output<typeof UserProfileSchema>;

/**
 * A change to a profile: preferences merge by name (`null` removes one); notes and tags are added once; `removeNotes`
 * removes notes by their text (as the profile keeps it, or with other spacing).
 */
export const ProfilePatchSchema = z.strictObject({
	preferences: z.record(z.string(), z.string().nullable()).optional(),
	notes: z.array(z.string()).optional(),
	tags: z.array(z.string()).optional(),
	removeNotes: z.array(z.string().max(10_000)).max(100).optional()
});

/**
 * A change to a profile (`updateProfile`): preferences merge by name (`null` removes one); notes and tags are added once;
 * `removeNotes` removes notes by their text.
 */
export type ProfilePatch = z.input<typeof ProfilePatchSchema>;

/** One topic note as stored, under its slug. */
export const StoredTopicSchema = z.object({ title: z.string(), note: z.string(), updatedAt: z.number() });

/** `ltm:topics:<userId>` as stored: slug → note. */
export const StoredTopicsSchema = validEntries(StoredTopicSchema);

export type StoredTopics = z.output<typeof StoredTopicsSchema>;

/** One topic note of a user. */
export type TopicNote = z.output<typeof StoredTopicSchema> & {
	/** The title lower-cased to a–z, 0–9 and "-", at most 64 characters: the topic's key. */
	slug: string;
};

/** A topic as listed (`/session forget` autocomplete). */
export type TopicListing = Pick<TopicNote, 'slug' | 'title' | 'updatedAt'>;

/** Where a status is asked from: the channel whose live memory it describes. */
export const StatusLocationSchema = z.object({
	/** `null` in a DM. */
	serverId: ServerIdSchema.nullable(),
	channelId: IdSchema,
	/** One persona's memory of the channel; left out, every persona's. */
	personaId: PersonaIdSchema.nullish()
});

/** Where a status is asked from (`status`'s `where`): the channel whose live memory `current` describes. */
export type StatusLocation = z.input<typeof StatusLocationSchema>;

/**
 * Messages edited or deleted on Discord (`memory.messagesChanged`): a deleted message leaves every copy
 * and is never captured again; an edited one keeps only its new text everywhere.
 */
export const MessagesChangeSchema = z.object({
	/** `null` in a DM. */
	serverId: ServerIdSchema.nullable(),
	channelId: IdSchema,
	/**
	 * In a DM, the member the DM is with (whose scope it is); unused in a guild. Without it, the member is
	 * found through the DM channel's archive list, which needs the archive on (`MEMORY_ARCHIVE_RETENTION_DAYS` > 0).
	 */
	userId: IdSchema.optional(),
	messageIds: z.array(MessageIdSchema).max(1000),
	kind: z.enum(['edited', 'deleted']),
	/**
	 * For an edit, the new text of each message by id. An edited message without one leaves every copy,
	 * as a deleted one does, and the next turn that carries it stores its new text.
	 */
	texts: z.record(MessageIdSchema, InputTextSchema).optional()
});

/** Messages edited or deleted on Discord, as `messagesChanged` takes them. */
export type MessagesChange = z.input<typeof MessagesChangeSchema>;

/**
 * One message a member asks memory to forget (`memory.forgetMessage`, the Forget this message command): it leaves every
 * copy and is never captured again, as a message deleted on Discord, while it stays on Discord.
 */
export const ForgetMessageSchema = z.object({
	/** `null` in a DM. */
	serverId: ServerIdSchema.nullable(),
	channelId: IdSchema,
	messageId: MessageIdSchema,
	/** The member who asks. */
	userId: IdSchema,
	/**
	 * Who wrote the message, as Discord says: a member's own message that memory does not hold (yet) is then forgotten all
	 * the same, so that no later turn stores it. Without it, such a message is answered `not-stored`.
	 */
	authorId: IdSchema.optional(),
	/** Whether the member may manage messages in that channel (Manage Messages): then anyone's message may be forgotten (not in a DM). */
	moderator: z.boolean().optional()
});

/** One message a member asks memory to forget, as `forgetMessage` takes it. */
export type ForgetMessageRequest = z.input<typeof ForgetMessageSchema>;

/** What `forgetMessage` did. */
export interface ForgetMessageResult {
	/**
	 * `forgotten`: the message left every copy and is on the channel's forgotten list; `not-yours`: memory holds it, but
	 * neither the member wrote it nor is it a persona's reply to them (and they are no moderator there); `not-stored`:
	 * memory holds no copy and nothing says the member wrote it.
	 */
	outcome: 'forgotten' | 'not-yours' | 'not-stored';
	/** Who wrote it, when memory held it: a member, or a persona. */
	writtenBy?: 'member' | 'persona';
	/** What was taken out, as for a deletion on Discord (all zero unless `forgotten`). */
	changes: MessagesChangeResult;
}

/**
 * One message a member asks memory to keep (`memory.rememberMessage`, the Remember this command): its text becomes a note of
 * their long-term profile, as the remember tool's notes are (MINIMAL members only).
 */
export const RememberMessageSchema = z.object({
	/** `null` in a DM. */
	serverId: ServerIdSchema.nullable(),
	channelId: IdSchema,
	messageId: MessageIdSchema,
	/** The member who asks: it must be their own message, or a persona's reply to them. */
	userId: IdSchema,
	/** Who wrote the message, as Discord says: a member's own message memory does not hold is then theirs all the same. */
	authorId: IdSchema.optional(),
	/** The message's text as Discord has it now; without it, the text memory stored. */
	text: InputTextSchema.optional()
});

/** One message a member asks memory to keep, as `rememberMessage` takes it. */
export type RememberMessageRequest = z.input<typeof RememberMessageSchema>;

/** What `rememberMessage` did. */
export interface RememberMessageResult {
	/**
	 * `remembered`: the note is in the profile (`note`); `not-minimal`: the member's privacy level keeps no profile
	 * (`privacyLevel`); `not-yours`: someone else's message; `not-stored`: no text to keep (memory holds no copy and none
	 * was given, or nothing says the member wrote it); `empty`: nothing left of the text once cleaned.
	 */
	outcome: 'remembered' | 'not-minimal' | 'not-yours' | 'not-stored' | 'empty';
	/** The note as the profile keeps it: one line, at most 500 characters (a longer text is cut, marked with "…"). */
	note?: string;
	/** The member's privacy level, when it is why nothing was kept. */
	privacyLevel?: PrivacyLevel;
}

/** Where the store lives, as `/session status` reports it; `custom` for a Keyv the host passed. */
export type StorageKind = 'sqlite' | 'redis' | 'postgres' | 'custom';

/** What memory holds about one user (`/session status`). */
export interface MemoryStatus {
	/** The user's privacy level. */
	privacyLevel: PrivacyLevel;
	/** Whether the user lets their memory follow them from one server to another. */
	crossServerOptIn: boolean;
	/** Where the store lives. */
	storage: StorageKind;
	/** The user's live short-term entries (user scope), in servers and DMs. */
	shortTermEntries: number;
	/** Messages the user wrote that archives hold. */
	archivedMessages: number;
	/** Whether the user has a long-term profile. */
	hasProfile: boolean;
	/** The user's topic notes. */
	topics: number;
	/** Persona replies to the user whose context's sources memory keeps (What did you remember?): ids only, for the short-term TTL. */
	contextSources: number;
	/** The live entry of the asked channel (server scope in a guild, user scope in a DM); absent when there is none. */
	current?: { messages: number; hasSummary: boolean; expiresInMs: number };
	/** How long memory keeps a conversation, a summary and the archive (the settings of docs/configuration.md). */
	ttl: { shortTermHours: number; summaryHours: number; archiveDays: number };
}

/** What `clearShortTerm` removed. */
export interface ClearShortTermResult {
	/** The user's own short-term entries deleted. */
	entriesDeleted: number;
	/** The user's messages removed from shared (server-scope) channel memories. */
	messagesRemoved: number;
}

/** What `messagesChanged` changed, over every copy of the messages. */
export interface MessagesChangeResult {
	/** Short-term entries rewritten or deleted. */
	entriesChanged: number;
	/** Copies taken out of short-term windows (one message may be in several entries). */
	messagesRemoved: number;
	/** Copies in short-term windows given their new text. */
	messagesEdited: number;
	/** Copies taken out of archives (one per persona that archived it). */
	archivedMessagesRemoved: number;
	/** Copies in archives given their new text. */
	archivedMessagesEdited: number;
	/** Digest lines that went because they quoted or counted a changed message. */
	digestLinesRemoved: number;
	/** Background summaries dropped because they cited a changed message (the digest serves until the next one). */
	summariesDropped: number;
}

/** What `clearAll` removed. */
export interface ClearAllResult extends ClearShortTermResult {
	/** Archived messages removed (the user's own, and whole conversations of their DMs). */
	archivedMessagesRemoved: number;
	/** Summaries dropped because they may have been built from the user's messages. */
	summariesDropped: number;
	/** Whether a long-term profile was deleted. */
	profileDeleted: boolean;
	/** Topic notes deleted. */
	topicsDeleted: number;
}
