import type { MemoryConfig } from '../config';
import type { Archive } from '../archive/Archive';
import type { ChannelArchives } from '../archive/ChannelArchives';
import type { ClearShortTermResult, MessagesChange, ShortTermEntry, StoredMessage } from '../schemas';
import { type RecordKey, Records } from '../records/Records';
import { type ConversationKeys } from '../records/scopes';
import { DM_SERVER_ID } from '../schemas/primitives';
import type { RecordStore, RecordWrite } from '../records/RecordStore';
import { entryLifetimeMs, isExpired } from './entries';
import { type ChangedMessages, changeMessages } from './changeMessages';
import { forgetChannel } from './forgetChannel';
import { forgetServer, type ServerPurge } from './forgetServer';
import { ForgottenReplies, forgottenLookup, forgottenUntil, isForgotten, markForgotten } from './forgotten';
import type { AuthorIndex } from './AuthorIndex';
import { findMessage, findMessages, type MessagePlace } from './findMessage';
import type { LedgerParts } from './LedgerParts';
import type { ScopeDirectory } from './ScopeDirectory';
import { forgetMember, type MemberErasure, type MemberForgetting } from './forgetMember';
import { memberScopes, type MemberScopes } from './memberScopes';

/**
 * The one place that knows every copy of a captured message, and the door through which each is
 * written, found and removed. A message is copied to:
 *
 * 1. the user scope's short-term entry (`shortterm:user:…`): the member's own conversation;
 * 2. the server scope's short-term entry (`shortterm:server:…`), in a guild: the channel's shared memory;
 * 3. the digest lines inside those entries, which quote or count it once it leaves the crude window;
 * 4. the summaries inside those entries: the background summary cites it, the tool's summary may paraphrase it;
 * 5. the live scope's archive: a chunk holds it, a marker says it was archived, a tombstone that it was removed;
 *    the channel's archive list (`archives:…`) names every persona's archive of the channel;
 * 6. the archive's search index, cached in each process (the archive head's epoch tells them to reload);
 * 7. the author index (`index:author:…`), which lists the live scopes holding a member's words;
 * 8. the directories (`index:user|server|channel:…`), which list the entries;
 * 9. exports, which read 1, 2 and 5;
 * 10. the channel's forgotten messages (`gone:<tag>:<id>`, and the set `forgotten-ids:…` of their ids): ids only, of
 *     messages deleted on Discord, which capture leaves out.
 *
 * Capture writes them through {@link readConversation} and {@link landConversation}, erasure removes them through {@link forgetMember}
 * and {@link forgetChannel}, an edit or deletion on Discord changes them through {@link changeMessages},
 * and the sweep expires them through the same parts, so a copy added here is one the erasure knows.
 */
export class MessageLedger {
	public readonly store: RecordStore;
	public readonly archive: Archive;
	public readonly channelArchives: ChannelArchives;
	public readonly directory: ScopeDirectory;
	public readonly authors: AuthorIndex;
	private readonly config: MemoryConfig;

	public constructor(private readonly parts: LedgerParts) {
		({
			store: this.store,
			archive: this.archive,
			channelArchives: this.channelArchives,
			directory: this.directory,
			authors: this.authors,
			config: this.config
		} = parts);
	}

	/** The records a turn's write holds while it reads and lands a conversation: its entries and the live scope's archive head. */
	public conversationLocks(keys: ConversationKeys): RecordKey<unknown>[] {
		return [...keys.entryKeys, Records.archiveHead(keys.liveKey)];
	}

	/**
	 * What a turn's write to one persona's conversation starts from, in one round trip: the entries as stored (expired ones
	 * read as missing), the turn's messages less those deleted on Discord, and what the live scope's archive needs to take
	 * them. Capture makes the entries as they should be from it and lands them with {@link landConversation}, holding
	 * {@link conversationLocks} across both, so no other write of this process lands in between.
	 */
	public async readConversation(keys: ConversationKeys, turnMessages: readonly StoredMessage[], now: number): Promise<ConversationRead> {
		const { entryKeys } = keys;
		// One round trip: the entries, the channel's deleted messages, the archive's head and the markers of these messages.
		const archiveKeys = this.archive.keysToRead(keys.liveKey, turnMessages, now);
		const lookup = forgottenLookup(keys.channel, turnMessages);
		const read = await this.store.getMany<unknown>([...entryKeys, ...lookup.keys, ...archiveKeys]);
		const forgotten = lookup.forgotten(read.slice(entryKeys.length, entryKeys.length + lookup.keys.length), now);
		return {
			keys,
			turnMessages,
			forgotten,
			messages: forgotten.size === 0 ? turnMessages : turnMessages.filter((message) => !isForgotten(forgotten, message)),
			current: entryKeys.map((_, index) => this.live(read[index] as ShortTermEntry | undefined, now)),
			archiveRead: archiveKeys.length > 0 ? read.slice(entryKeys.length + lookup.keys.length) : undefined
		};
	}

	/**
	 * Lands a turn's conversation as capture made it from `read`: its short-term entries (`entries`, in the order of
	 * `read.current`), the live scope's archive and search index, the author index and the directories.
	 */
	public async landConversation(
		read: ConversationRead,
		entries: readonly ShortTermEntry[],
		now: number,
		/** Records that land in the same batch: what the replies' contexts drew on. */
		alongside: readonly RecordWrite[] = []
	): Promise<void> {
		const { keys, current, messages, forgotten } = read;
		const { entryKeys } = keys;
		const liveIds = new Set(current[entryKeys.indexOf(keys.liveKey)]?.messages.map((message) => message.id));
		const landed = messages.filter((message) => !liveIds.has(message.id));
		// Indexes before what they index, so a process killed between two writes leaves at worst a listing of
		// nothing (read as nothing, swept later), never an entry or message that status, export and erasure miss.
		// Under the scope's lock, so an erasure of this scope never runs between a write and its listing.
		const append = await this.archive.prepare(keys.liveKey, read.turnMessages, now, read.archiveRead, (message) =>
			isForgotten(forgotten, message)
		);
		await this.authors.record(keys.liveKey, landed, append.fresh, now);
		// An entry that was in the store keeps its listing while this process's last write of it still covers it.
		const written = entryKeys.map((key, index) => ({ key, entry: entries[index]! }));
		await this.directory.track(written, now, { steady: new Set(entryKeys.filter((_, index) => current[index])) });
		await append.register();
		// The entries and the archive land in one batch: all of the turn or none of it.
		await this.store.setMany(
			[...written.map(({ key, entry }) => ({ key, value: entry, ttlMs: entryLifetimeMs(entry, this.config) })), ...append.writes, ...alongside],
			append.setAdds
		);
		append.landed();
	}

	/**
	 * Writes a conversation's entries without new messages (the tool's summary): `next` gets them as stored
	 * (expired ones read as missing) and returns them as they should be. The directories learn their new lifetimes.
	 */
	public async writeEntries(
		keys: ConversationKeys,
		now: number,
		next: (current: (ShortTermEntry | undefined)[]) => ShortTermEntry[]
	): Promise<ShortTermEntry[]> {
		const { entryKeys } = keys;
		const written = await this.store.locked(entryKeys, async () => {
			const stored = await this.store.getMany<ShortTermEntry>(entryKeys);
			const entries = next(stored.map((entry) => this.live(entry, now)));
			const writes = entryKeys.map((key, index) => ({ key, entry: entries[index]! }));
			await this.store.setMany(writes.map(({ key, entry }) => ({ key, value: entry, ttlMs: entryLifetimeMs(entry, this.config) })));
			return writes;
		});
		// The directory learns the longer lifetime a summary gives the entry.
		await this.directory.track(written, now);
		return written.map(({ entry }) => entry);
	}

	/**
	 * Changes one live entry under its lock (a background summary stored or marked stale): `change` gets the
	 * entry and returns it as it should be, or null to leave it. Resolves with what was written, or null.
	 */
	public updateEntry(key: string, now: () => number, change: (entry: ShortTermEntry) => ShortTermEntry | null): Promise<ShortTermEntry | null> {
		const record = Records.entry(key);
		return this.store.locked([record], async () => {
			const entry = this.live(await this.store.get(record), now());
			const next = entry ? change(entry) : null;
			if (!next) return null;
			await this.store.set(record, next, next.lastUpdated + entryLifetimeMs(next, this.config) - now());
			return next;
		});
	}

	/** Every scope holding something of one member, found through the directories and the author index, never by a scan. */
	public memberScopes(userId: string): Promise<MemberScopes> {
		return memberScopes(this.parts, userId);
	}

	/**
	 * Removes a member's words from every copy (see the list above): their own entries go whole, their
	 * messages leave every shared entry, with the digest lines and background summaries that cite them;
	 * `everything` also removes them from the archives (their DMs' archives go whole), drops the summaries
	 * that may paraphrase them, and takes them out of the author index.
	 */
	public forgetMember(userId: string, what: 'short-term', now: number): Promise<ClearShortTermResult>;
	public forgetMember(userId: string, what: 'everything', now: number): Promise<MemberErasure>;
	public forgetMember(userId: string, what: MemberForgetting, now: number): Promise<ClearShortTermResult | MemberErasure>;
	public forgetMember(userId: string, what: MemberForgetting, now: number): Promise<ClearShortTermResult | MemberErasure> {
		return forgetMember(this.parts, userId, what, now);
	}

	/**
	 * Removes a member's words from every copy of one server (see {@link forgetMember}): their own entries of its
	 * channels go whole, their messages and the replies to their turns leave its shared entries and archives.
	 */
	public forgetMemberIn(userId: string, serverId: string, now: number): Promise<MemberErasure> {
		return forgetMember(this.parts, userId, 'everything', now, serverId) as Promise<MemberErasure>;
	}

	/** Messages of one channel edited or deleted on Discord, in every copy (see {@link changeMessages}). */
	public changeMessages(change: MessagesChange, now: number): Promise<ChangedMessages> {
		return changeMessages(this.parts, [change], now);
	}

	/** The copy memory keeps of one message of a channel, or null (see findMessage.ts): nothing is written. */
	public findMessage(place: MessagePlace, messageId: string): Promise<StoredMessage | null> {
		return findMessage(this.parts, place, messageId);
	}

	/** The copies memory keeps of messages of one channel, by id (see findMessage.ts): nothing is written. */
	public findMessages(place: MessagePlace, messageIds: readonly string[]): Promise<Map<string, StoredMessage>> {
		return findMessages(this.parts, place, messageIds);
	}

	/**
	 * The persona's replies to a turn that must not be remembered (its member is FULL): their ids (and, without a host
	 * id, their text) go on the channel's forgotten list, so a later turn's history, which carries them as plain persona
	 * messages, does not store them either.
	 */
	public async forgetReplies(where: { serverId: string | null; channelId: string }, replies: readonly StoredMessage[], now: number): Promise<void> {
		const forgotten = new ForgottenReplies();
		forgotten.note(where, replies);
		for (const channel of forgotten.channels())
			await markForgotten(
				this.parts,
				{ serverId: channel.serverId ?? DM_SERVER_ID, channelId: channel.channelId },
				channel.messageIds,
				now,
				forgottenUntil(this.config, now)
			);
	}

	/** Everything of one server, as when the bot is removed from it (see {@link forgetServer}). */
	public forgetServer(serverId: string): Promise<ServerPurge> {
		return forgetServer(this.parts, serverId);
	}

	/** A moderator's wipe of one guild channel: every entry of it (server and user scopes, every persona) and its archives. */
	public forgetChannel(serverId: string, channelId: string, now: number): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
		return forgetChannel(this.parts, serverId, channelId, now);
	}

	private live(entry: ShortTermEntry | undefined, now: number): ShortTermEntry | undefined {
		return entry && !isExpired(entry, this.config, now) ? entry : undefined;
	}
}

/** What a turn's write to a conversation read (see {@link MessageLedger.readConversation}). */
export interface ConversationRead {
	keys: ConversationKeys;
	/** The turn's messages as given. */
	turnMessages: readonly StoredMessage[];
	/** The turn's messages less those deleted on Discord: what the entries take. */
	messages: readonly StoredMessage[];
	/** The conversation's entries as stored, the user scope's first; undefined where none is live. */
	current: (ShortTermEntry | undefined)[];
	/** The channel's messages deleted on Discord (id → until when). */
	forgotten: ReadonlySet<string>;
	/** The archive head and markers read with the entries, for the archive's append. */
	archiveRead: unknown[] | undefined;
}
