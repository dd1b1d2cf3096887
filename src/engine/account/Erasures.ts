import type { MemoryLogger } from '../MemoryLogger';
import type { MemberErasure } from '../ledger/forgetMember';
import {
	assertId,
	type ClearAllResult,
	type ClearShortTermResult,
	type ForgetMessageRequest,
	type ForgetMessageResult,
	ForgetMessageSchema,
	type MessagesChange,
	MessagesChangeSchema,
	type MessagesChangeResult,
	parseInput,
	PrivacyLevel,
	type ProfilePatch,
	ProfilePatchSchema,
	type UserProfile,
	type UserSettings,
	type UserSettingsPatch,
	UserSettingsPatchSchema
} from '../schemas';
import type { SummarizerCounters } from '../summaries/SummarizerCounters';
import type { BackgroundSummarizer } from '../summaries/BackgroundSummarizer';
import { messagesChanged } from '../summaries/staleness';
import type { FileRewriting } from '../records/openRecords';
import type { ResealResult } from '../records/RecordStore';
import type { AccountParts } from './AccountParts';
import { clearAll, clearShortTerm, forgetMemberIn } from './erasure';
import { eraseLongTerm } from './longTerm';
import { updateProfile } from './profile';
import { forgetting } from './forgetMessage';
import { noChanges } from '../ledger/changeMessages';
import { writerOf } from './messageOwner';
import { forgetTopic } from './topics';

/** What erasures work with: the account's parts, the background summarizer, and what an SQLite file needs after. */
export interface ErasureParts {
	account: AccountParts;
	summarizer: BackgroundSummarizer | null;
	summarizerCounters: SummarizerCounters;
	rewrites: FileRewriting;
	now: () => number;
	logger: MemoryLogger;
}

/**
 * Every erasure a member, a moderator, the host or Discord asks for, and the one protocol each runs
 * (docs/guarantees.md#forgetting): the operation sets the barrier that keeps capture from storing again what it erases
 * and waits for the captures in flight; the ledger takes out every copy; the background summarizer is kept meanwhile
 * from writing the erased words back ({@link run}); and an SQLite store's log is emptied and its file rewritten, so no
 * page keeps them ({@link forgotten}). Each method takes its input as the host gave it and checks it here, once.
 */
export class Erasures {
	public constructor(private readonly parts: ErasureParts) {}

	/** `/session clear`: the member's short-term memory, and their messages in shared channel memories. */
	public clearShortTerm(userId: string): Promise<ClearShortTermResult> {
		assertId('userId', userId);
		return this.run(() => clearShortTerm(this.parts.account, userId, this.parts.now()));
	}

	/** `/session clear scope:all`: every copy of the member's words the ledger knows, and their long-term memory. */
	public clearAll(userId: string): Promise<ClearAllResult> {
		assertId('userId', userId);
		return this.run(() => clearAll(this.parts.account, userId, this.parts.now()));
	}

	/** A member left a server: what memory holds of them there. Null when it held nothing of them. */
	public memberLeft(serverId: string, userId: string): Promise<MemberErasure | null> {
		assertId('userId', userId);
		assertId('serverId', serverId);
		return this.run(() => forgetMemberIn(this.parts.account, userId, serverId, this.parts.now()));
	}

	/** A moderator's wipe of everything remembered in one guild channel. */
	public wipeChannel(serverId: string, channelId: string): Promise<{ entriesDeleted: number; messagesDeleted: number }> {
		assertId('serverId', serverId);
		assertId('channelId', channelId);
		return this.run(() => this.parts.account.ledger.forgetChannel(serverId, channelId, this.parts.now()));
	}

	/** One topic note, by slug or title; false when there was none. */
	public forgetTopic(userId: string, slug: string): Promise<boolean> {
		assertId('userId', userId);
		return this.run(() => forgetTopic(this.parts.account, userId, slug));
	}

	/**
	 * A member's settings changed: choosing FULL erases them as {@link clearAll} does (again, if they were FULL already),
	 * after the level is stored, so that from that moment nothing of theirs is captured; leaving MINIMAL erases the profile
	 * and topics they may no longer keep.
	 */
	public async setUserSettings(userId: string, patch: UserSettingsPatch): Promise<UserSettings> {
		assertId('userId', userId);
		const asked = parseInput(UserSettingsPatchSchema, patch, 'user settings');
		const { account, now } = this.parts;
		const changed = await account.settings.setUser(userId, asked, now());
		if (changed.privacyLevel === PrivacyLevel.FULL && asked.privacyLevel === PrivacyLevel.FULL)
			await this.run(() => clearAll(account, userId, now()));
		else if (changed.privacyLevel !== PrivacyLevel.MINIMAL) await this.run(() => eraseLongTerm(account.store, userId));
		return { ...(await account.settings.user(userId)) };
	}

	/** A change merged into a member's profile; a preference set to null, and a note removed, are erased, as from every file. */
	public updateProfile(userId: string, patch: ProfilePatch): Promise<UserProfile> {
		assertId('userId', userId);
		const parsed = parseInput(ProfilePatchSchema, patch, 'profile patch');
		const update = () => updateProfile(this.parts.account, userId, parsed, this.parts.now());
		const erases = Object.values(parsed.preferences ?? {}).includes(null) || (parsed.removeNotes?.length ?? 0) > 0;
		return erases ? this.run(update) : update();
	}

	/**
	 * Messages edited or deleted on Discord: a deleted one leaves every copy, an edited one keeps only its new text. An SQLite
	 * file's log is emptied and the file rewritten soon rather than at once: deletions come one by one, and each of those
	 * serves many.
	 */
	public async messagesChanged(change: MessagesChange): Promise<MessagesChangeResult> {
		const parsed = parseInput(MessagesChangeSchema, change, 'message change');
		const { account, summarizer, summarizerCounters, now } = this.parts;
		const result = await messagesChanged(account.ledger, summarizer, summarizerCounters, parsed, now);
		await this.forgotten('deletion');
		return result;
	}

	/**
	 * One message a member asks memory to forget (Forget this message): checked against who wrote it (see forgetMessage.ts),
	 * then forgotten as a message deleted on Discord is ({@link messagesChanged}), while it stays on Discord.
	 */
	public async forgetMessage(request: ForgetMessageRequest): Promise<ForgetMessageResult> {
		const parsed = parseInput(ForgetMessageSchema, request, 'message to forget');
		const { serverId, channelId, messageId, userId } = parsed;
		const stored = await this.parts.account.ledger.findMessage({ serverId, channelId, userId }, messageId);
		const writtenBy = writerOf(stored);
		const refused = forgetting(stored, parsed);
		if (refused) return { outcome: refused, writtenBy, changes: noChanges() };
		const inDm = serverId === null ? { userId } : {};
		const changes = await this.messagesChanged({ serverId, channelId, ...inDm, messageIds: [messageId], kind: 'deleted' });
		// A reply forgotten takes the record of what its context drew on with it.
		if (stored?.role === 'persona' && stored.replyToAuthorId) await this.parts.account.sources.drop(stored.replyToAuthorId, messageId);
		return { outcome: 'forgotten', writtenBy, changes };
	}

	/** The store sealed again with the current key: afterwards no page of an SQLite file keeps a value as it was. */
	public async reseal(): Promise<ResealResult> {
		const result = await this.parts.account.store.reseal();
		await this.forgotten('rewrite');
		return result;
	}

	/** Runs `erase` so that a background summary written meanwhile cannot bring the erased words back, then {@link forgotten}. */
	public async run<T>(erase: () => Promise<T>): Promise<T> {
		const { summarizer } = this.parts;
		const result = await (summarizer ? summarizer.whileErasing(erase) : erase());
		await this.forgotten('erasure');
		return result;
	}

	/** Resolves once no SQLite log keeps what deletions forgot: the emptying that waits runs now (scripts, tests). */
	public logEmptied(): Promise<void> {
		return this.parts.rewrites.logEmptied();
	}

	/** Resolves once no SQLite file keeps what was forgotten: the log's emptying and the file's rewrite that wait run now (scripts, tests). */
	public filesSettled(): Promise<void> {
		return this.parts.rewrites.settled();
	}

	/**
	 * After something was forgotten, on SQLite: after a deletion, the log emptied within a second; after an erasure, before
	 * this resolves; the file rewritten within `MEMORY_SQLITE_REWRITE_SECONDS` after either. `rewrite`: both now.
	 */
	public async forgotten(what: 'deletion' | 'erasure' | 'rewrite'): Promise<void> {
		try {
			await (what === 'rewrite' ? this.parts.rewrites.now() : this.parts.rewrites.soon(what === 'erasure' ? 'now' : 'soon'));
		} catch (error) {
			// What was forgotten is gone from every row; only the file's unused pages wait for the next rewrite.
			this.parts.logger.error('[memory] emptying the SQLite write-ahead log after an erasure failed:', error);
		}
	}
}
