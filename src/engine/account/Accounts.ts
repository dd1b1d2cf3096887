import {
	assertId,
	type ContextSources,
	type ContextSourcesViewer,
	ContextSourcesViewerSchema,
	parseInput,
	type MemoryStatus,
	MessageIdSchema,
	type RememberMessageRequest,
	type RememberMessageResult,
	RememberMessageSchema,
	type ServerSettings,
	type StatusLocation,
	StatusLocationSchema,
	type TopicListing,
	type TopicNote,
	type UserExport,
	type UserProfile,
	type UserSettings
} from '../schemas';
import { readInput } from '../schemas/readInput';
import type { AccountParts } from './AccountParts';
import { contextSources } from './contextSources';
import { exportUser } from './exportUser';
import { getProfile } from './profile';
import { remember, type RememberArguments } from './remember';
import { rememberMessage } from './rememberMessage';
import { status } from './status';
import { getTopic, listTopics, saveTopic } from './topics';

/** A topic as `saveTopic` takes it: a title and a note, or one object holding both. */
export type TopicInput = [title: string, note: string] | [topic: { title: string; note: string }];

/**
 * What a member's `/session` reads and what the persona's LLM keeps about them: settings, status, export, profile and
 * topics. Each call takes its input as the host gave it and checks it here, once (erasing calls are {@link Erasures}').
 */
export class Accounts {
	public constructor(
		private readonly parts: AccountParts,
		private readonly now: () => number
	) {}

	public async userSettings(userId: string): Promise<UserSettings> {
		return { ...(await this.parts.settings.user(id('userId', userId))) };
	}

	public async serverSettings(serverId: string): Promise<ServerSettings> {
		return { ...(await this.parts.settings.server(id('serverId', serverId))) };
	}

	public status(userId: string, where: StatusLocation | undefined): Promise<MemoryStatus> {
		const location = where === undefined ? undefined : parseInput(StatusLocationSchema, where, 'status location');
		return status(this.parts, id('userId', userId), location, this.now());
	}

	public export(userId: string): Promise<UserExport> {
		return exportUser(this.parts, id('userId', userId), this.now());
	}

	public profile(userId: string): Promise<UserProfile | null> {
		return getProfile(this.parts, id('userId', userId));
	}

	public remember(userId: string, input: unknown): Promise<{ kind: RememberArguments['kind']; saved: string }> {
		return remember(this.parts, id('userId', userId), input, this.now());
	}

	/** Remember this: one message's text as a note of the member's profile (see rememberMessage.ts). */
	public async rememberMessage(request: RememberMessageRequest): Promise<RememberMessageResult> {
		const parsed = parseInput(RememberMessageSchema, request, 'message to remember');
		const { serverId, channelId, messageId, userId } = parsed;
		const stored = await this.parts.ledger.findMessage({ serverId, channelId, userId }, messageId);
		return rememberMessage(this.parts, parsed, stored, this.now());
	}

	/** What did you remember?: what one persona reply's context drew on, as the member asking may see it (see contextSources.ts). */
	public contextSources(replyMessageId: string, viewer: ContextSourcesViewer): Promise<ContextSources> {
		const replyId = parseInput(MessageIdSchema, replyMessageId, 'reply message id');
		return contextSources(this.parts, replyId, parseInput(ContextSourcesViewerSchema, viewer, 'viewer'), this.now());
	}

	public saveTopic(userId: string, ...input: TopicInput): Promise<TopicNote> {
		id('userId', userId);
		const [titleOrTopic, note] = input;
		const topic =
			typeof titleOrTopic === 'object' && titleOrTopic !== null
				? readInput('topic', titleOrTopic, () => ({ title: titleOrTopic.title, note: titleOrTopic.note }), ['title', 'note'])
				: { title: titleOrTopic, note };
		return saveTopic(this.parts, userId, topic.title, topic.note, this.now());
	}

	public topics(userId: string): Promise<TopicListing[]> {
		return listTopics(this.parts, id('userId', userId));
	}

	public topic(userId: string, slug: string): Promise<TopicNote | null> {
		return getTopic(this.parts, id('userId', userId), slug);
	}
}

/** `value`, once it is known to be an id; else an `INVALID_INPUT` naming `name`. */
function id(name: string, value: string): string {
	assertId(name, value);
	return value;
}
