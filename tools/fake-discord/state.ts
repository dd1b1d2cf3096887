import { ChannelType, PermissionFlagsBits } from 'discord.js';
import { DEFAULT_EVERYONE_PERMISSIONS, GUILD_DEFAULTS, apiDmChannel, apiGuildChannel, apiMember, apiRole, apiUser, isThreadType } from './entities';
import { computePermissions } from './permissions';
import type { SnowflakeGenerator } from './snowflakes';
import type { ApiObject, FakeChannelInit, FakeDiscordOptions, FakeGuildInit, FakeMemberInit, FakeUserInit, UserRef } from './types';

/** A member as the fake keeps it. */
export interface MemberRecord {
	userId: string;
	roles: string[];
	nick: string | null;
	joinedAt: string;
	permissions?: bigint;
}

/** A guild as the fake keeps it; channels live in the state's channel map. */
export interface GuildRecord {
	id: string;
	name: string;
	ownerId: string;
	joinedAt: string;
	/** @everyone first (its id is the guild id), then the bot's managed role, then the guild's own. */
	roles: ApiObject[];
	channelIds: string[];
	members: Map<string, MemberRecord>;
}

const DEFAULT_BOT: FakeUserInit = { id: '1000000000000000001', username: 'fake-bot', bot: true };

/** Everything the fake Discord knows about users, guilds, channels, roles and members. */
export class FakeState {
	public readonly botUser: ApiObject;
	public readonly applicationId: string;
	readonly #snowflakes: SnowflakeGenerator;
	readonly #users = new Map<string, ApiObject>();
	readonly #guilds = new Map<string, GuildRecord>();
	readonly #channels = new Map<string, ApiObject>();

	public constructor(options: FakeDiscordOptions, snowflakes: SnowflakeGenerator) {
		this.#snowflakes = snowflakes;
		this.botUser = apiUser({ bot: true, ...(options.botUser ?? DEFAULT_BOT) });
		this.#users.set(String(this.botUser.id), this.botUser);
		this.applicationId = options.applicationId ?? String(this.botUser.id);
		for (const user of options.users ?? []) this.user(user);
		for (const guild of options.guilds ?? []) this.#addGuild(guild);
		for (const dm of options.dmChannels ?? []) this.#channels.set(dm.id, apiDmChannel(dm.id, this.user(dm.recipientId)));
	}

	/** The user a reference names; a user given in full is added when new. Throws for an unknown id. */
	public user(ref: UserRef): ApiObject {
		const id = typeof ref === 'string' ? ref : ref.id;
		const known = this.#users.get(id);
		if (known) return known;
		if (typeof ref === 'string') throw new Error(`fake Discord: unknown user ${ref}; list it in users or pass the user in full`);
		const user = apiUser(ref);
		this.#users.set(id, user);
		return user;
	}

	public findUser(id: string): ApiObject | undefined {
		return this.#users.get(id);
	}

	public findChannel(id: string): ApiObject | undefined {
		return this.#channels.get(id);
	}

	public findGuild(id: string): GuildRecord | undefined {
		return this.#guilds.get(id);
	}

	public get guilds(): GuildRecord[] {
		return [...this.#guilds.values()];
	}

	/** Adds a channel or thread to a guild after start; the caller tells the gateway. */
	public addChannel(guildId: string, channel: FakeChannelInit): ApiObject {
		const guild = this.#guild(guildId);
		const api = apiGuildChannel(channel, guildId, guild.channelIds.length, String(this.botUser.id));
		guild.channelIds.push(channel.id);
		this.#channels.set(channel.id, api);
		return api;
	}

	/** Makes a user a member of a guild unless it is one already, as a user who acts there must be. */
	public ensureMember(guildId: string, userId: string): MemberRecord {
		const guild = this.#guild(guildId);
		const known = guild.members.get(userId);
		if (known) return known;
		return this.#addMember(guild, { userId });
	}

	/** A member object with its user, or undefined when the user is not in the guild. */
	public apiMember(guildId: string, userId: string): ApiObject | undefined {
		const member = this.#guilds.get(guildId)?.members.get(userId);
		if (!member) return undefined;
		return apiMember(this.user(userId), member.roles, member.nick, member.joinedAt);
	}

	/** A member object as messages and resolved options embed it: without its user. */
	public memberWithoutUser(guildId: string, userId: string): ApiObject | undefined {
		const { user: _user, ...member } = this.apiMember(guildId, userId) ?? {};
		return _user ? member : undefined;
	}

	/** A member's permissions in a guild channel (a thread uses its parent's overwrites). */
	public permissionsIn(channelId: string, userId: string): bigint {
		const channel = this.#channels.get(channelId);
		if (!channel?.guild_id) throw new Error(`fake Discord: ${channelId} is not a guild channel the fake knows`);
		const guild = this.#guild(String(channel.guild_id));
		// A user who is not (yet) a member counts as one with no roles.
		const member = guild.members.get(userId) ?? { roles: [], permissions: undefined };
		if (member.permissions !== undefined) return member.permissions;
		const source = isThreadType(channel.type) ? this.#channels.get(String(channel.parent_id)) : channel;
		const roleIds = [guild.id, ...member.roles];
		const rolePermissions = guild.roles.filter((role) => roleIds.includes(String(role.id))).map((role) => BigInt(String(role.permissions)));
		const overwrites = (source?.permission_overwrites as ApiObject[] | undefined) ?? [];
		return computePermissions(rolePermissions, overwrites, { guildId: guild.id, userId, roleIds: member.roles });
	}

	/** The DM channel between the bot and a user, made when there is none yet. */
	public dmChannelWith(userId: string): ApiObject {
		for (const channel of this.#channels.values()) {
			const recipients = channel.recipients as ApiObject[] | undefined;
			if (channel.type === ChannelType.DM && recipients?.some((recipient) => recipient.id === userId)) return channel;
		}
		const channel = apiDmChannel(this.#snowflakes.next(), this.user(userId));
		this.#channels.set(String(channel.id), channel);
		return channel;
	}

	/** A guild object as `GET /guilds/:id` returns it. */
	public guildPayload(guildId: string): ApiObject {
		const guild = this.#guild(guildId);
		return {
			id: guild.id,
			name: guild.name,
			owner_id: guild.ownerId,
			roles: guild.roles,
			...GUILD_DEFAULTS
		};
	}

	/** The GUILD_CREATE payload for a guild: the guild with its channels, threads and members. */
	public guildCreatePayload(guildId: string): ApiObject {
		const guild = this.#guild(guildId);
		const channels = guild.channelIds.map((id) => this.#channels.get(id)!);
		return {
			...this.guildPayload(guildId),
			joined_at: guild.joinedAt,
			large: false,
			unavailable: false,
			member_count: guild.members.size,
			members: [...guild.members.keys()].map((userId) => this.apiMember(guild.id, userId)),
			channels: channels.filter((channel) => !isThreadType(channel.type)),
			threads: channels.filter((channel) => isThreadType(channel.type)),
			voice_states: [],
			presences: [],
			stage_instances: [],
			guild_scheduled_events: [],
			soundboard_sounds: []
		};
	}

	#guild(guildId: string): GuildRecord {
		const guild = this.#guilds.get(guildId);
		if (!guild) throw new Error(`fake Discord: unknown guild ${guildId}`);
		return guild;
	}

	#addGuild(init: FakeGuildInit): void {
		const botId = String(this.botUser.id);
		const botRoleId = this.#snowflakes.next();
		const guild: GuildRecord = {
			id: init.id,
			name: init.name ?? `guild-${init.id}`,
			ownerId: init.ownerId ?? this.#snowflakes.next(),
			joinedAt: new Date().toISOString(),
			roles: [
				apiRole({ id: init.id, name: '@everyone', position: 0, permissions: init.everyonePermissions ?? DEFAULT_EVERYONE_PERMISSIONS }),
				apiRole({
					id: botRoleId,
					name: String(this.botUser.username),
					permissions: init.botPermissions ?? PermissionFlagsBits.Administrator,
					managed: true,
					tags: { bot_id: botId }
				}),
				...(init.roles ?? []).map((role) => apiRole(role))
			],
			channelIds: [],
			members: new Map()
		};
		this.#guilds.set(guild.id, guild);
		this.#addMember(guild, { userId: botId, roles: [botRoleId] });
		for (const member of init.members ?? []) this.#addMember(guild, member);
		for (const channel of init.channels ?? []) this.addChannel(guild.id, channel);
	}

	#addMember(guild: GuildRecord, init: FakeMemberInit): MemberRecord {
		this.user(init.userId);
		const member: MemberRecord = {
			userId: init.userId,
			roles: [...(init.roles ?? [])],
			nick: init.nick ?? null,
			joinedAt: new Date().toISOString(),
			...(init.permissions === undefined ? {} : { permissions: BigInt(init.permissions) })
		};
		guild.members.set(init.userId, member);
		return member;
	}
}
