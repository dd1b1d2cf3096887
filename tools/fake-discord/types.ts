import type { ChannelType } from 'discord.js';

/** A JSON object as Discord sends it: snake_case keys, loosely typed on purpose (the fake only fills what discord.js reads). */
export type ApiObject = Record<string, unknown>;

/** A user of the fake Discord. */
export interface FakeUserInit {
	id: string;
	username: string;
	/** @default null */
	globalName?: string | null;
	/** @default false */
	bot?: boolean;
}

/** Where a user is wanted: the id of a user the fake knows, or a user (added to the fake when new). */
export type UserRef = string | FakeUserInit;

/** A role of a guild. */
export interface FakeRoleInit {
	id: string;
	name: string;
	/** A permission bit field, as a bigint or its decimal string. @default 0n */
	permissions?: bigint | string;
	/** @default 1 */
	position?: number;
}

/** A channel of a guild: a text channel by default; a thread when `type` is a thread type, with `parentId`. */
export interface FakeChannelInit {
	id: string;
	/** @default `channel-${id}` */
	name?: string;
	/** @default ChannelType.GuildText */
	type?: ChannelType;
	/** The category of a channel, or the channel of a thread. */
	parentId?: string;
	/** @default null */
	topic?: string | null;
	/** Raw permission overwrites, as Discord sends them. @default [] */
	permissionOverwrites?: ApiObject[];
}

/** A member of a guild, tied to a user by id. */
export interface FakeMemberInit {
	userId: string;
	/** Ids of the guild's roles the member has (besides @everyone). @default [] */
	roles?: string[];
	/** @default null */
	nick?: string | null;
	/** Permissions sent for this member in interactions, instead of those its roles give. Prefer roles: discord.js computes from them elsewhere. */
	permissions?: bigint | string;
}

/** A guild the bot is in. The bot is added as a member on its own. */
export interface FakeGuildInit {
	id: string;
	/** @default `guild-${id}` */
	name?: string;
	/** The owner's user id; the owner has every permission in discord.js's eyes. @default a user id that is not a member */
	ownerId?: string;
	/**
	 * Permissions of the @everyone role (whose id is the guild id).
	 * @default view, send, read history, embed, attach, react, threads, use commands
	 */
	everyonePermissions?: bigint | string;
	/** Permissions of the bot's managed role. @default PermissionFlagsBits.Administrator */
	botPermissions?: bigint | string;
	/** @default [] */
	channels?: FakeChannelInit[];
	/** @default [] */
	roles?: FakeRoleInit[];
	/** @default [] */
	members?: FakeMemberInit[];
}

/** A direct-message channel between the bot and one user. */
export interface FakeDmChannelInit {
	id: string;
	recipientId: string;
}

/** What `FakeDiscord.start` builds. */
export interface FakeDiscordOptions {
	/**
	 * The bot's user; its id is also the application id unless `applicationId` is given.
	 * @default { id: '1000000000000000001', username: 'fake-bot', bot: true }
	 */
	botUser?: FakeUserInit;
	/** @default botUser.id */
	applicationId?: string;
	/** @default [] */
	users?: FakeUserInit[];
	/** @default [] */
	guilds?: FakeGuildInit[];
	/** @default [] */
	dmChannels?: FakeDmChannelInit[];
	/** The heartbeat interval sent in Hello. @default 41250 */
	heartbeatIntervalMs?: number;
}

/** A file part of a multipart request body. */
export interface RecordedFile {
	/** The form field name, `files[0]` for discord.js. */
	field: string;
	filename: string;
	contentType: string;
	data: Buffer;
}

/** One REST request the fake received, with what it answered. */
export interface RecordedRequest {
	method: string;
	/** The path after `/api/v10`, percent-decoded (`/webhooks/1/tok/messages/@original`). */
	path: string;
	query: Record<string, string>;
	/** The JSON body, or the parsed `payload_json` of a multipart body; `undefined` when there was none. */
	body: unknown;
	files: RecordedFile[];
	status: number;
	response: unknown;
	/** When it arrived, in milliseconds since the Unix epoch. */
	at: number;
}

/** An interaction's answer: Discord's first callback, and the message the member ends up seeing. */
export interface InteractionAnswer {
	/** The callback (`body.type`, `body.data`): a reply, an update, autocomplete choices, or a deferral (type 5 or 6). */
	callback: RecordedRequest;
	/** Milliseconds from the interaction's dispatch to the callback's arrival; past 3,000 Discord shows "This interaction failed". */
	callbackAfterMs: number;
	/** The request that carried the message: the callback itself, or after a deferral the edit of `@original` or the follow-up. */
	request: RecordedRequest;
	/** That message as sent: `content`, `components`, `flags`… (a callback's `data`, an edit's or follow-up's body). */
	data: ApiObject;
}
