import { ChannelType, PermissionFlagsBits } from 'discord.js';
import type { ApiObject, FakeChannelInit, FakeRoleInit, FakeUserInit } from './types';

/** What @everyone may do in a fake guild unless the guild says otherwise: what a plain member of a typical server can. */
export const DEFAULT_EVERYONE_PERMISSIONS =
	PermissionFlagsBits.ViewChannel |
	PermissionFlagsBits.SendMessages |
	PermissionFlagsBits.ReadMessageHistory |
	PermissionFlagsBits.EmbedLinks |
	PermissionFlagsBits.AttachFiles |
	PermissionFlagsBits.AddReactions |
	PermissionFlagsBits.UseExternalEmojis |
	PermissionFlagsBits.CreatePublicThreads |
	PermissionFlagsBits.SendMessagesInThreads |
	PermissionFlagsBits.UseApplicationCommands |
	PermissionFlagsBits.ChangeNickname;

const THREAD_TYPES: ReadonlySet<ChannelType> = new Set([ChannelType.PublicThread, ChannelType.PrivateThread, ChannelType.AnnouncementThread]);

/** Whether a channel type is a thread type, which Discord lists apart from channels in GUILD_CREATE. */
export function isThreadType(type: unknown): boolean {
	return THREAD_TYPES.has(type as ChannelType);
}

/** A user object as Discord sends it. */
export function apiUser(user: FakeUserInit): ApiObject {
	return {
		id: user.id,
		username: user.username,
		global_name: user.globalName ?? null,
		discriminator: '0',
		avatar: null,
		bot: user.bot ?? false,
		system: false,
		public_flags: 0,
		flags: 0
	};
}

/** A role object as Discord sends it. */
export function apiRole(role: FakeRoleInit & { managed?: boolean; tags?: ApiObject }): ApiObject {
	return {
		id: role.id,
		name: role.name,
		color: 0,
		colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
		hoist: false,
		icon: null,
		unicode_emoji: null,
		position: role.position ?? 1,
		permissions: BigInt(role.permissions ?? 0n).toString(),
		managed: role.managed ?? false,
		mentionable: false,
		flags: 0,
		...(role.tags ? { tags: role.tags } : {})
	};
}

/** A guild channel or thread object as Discord sends it. */
export function apiGuildChannel(channel: FakeChannelInit, guildId: string, position: number, ownerId: string): ApiObject {
	const type = channel.type ?? ChannelType.GuildText;
	const base = {
		id: channel.id,
		type,
		guild_id: guildId,
		name: channel.name ?? `channel-${channel.id}`,
		parent_id: channel.parentId ?? null,
		flags: 0,
		last_message_id: null,
		rate_limit_per_user: 0,
		nsfw: false
	};
	if (isThreadType(type)) {
		return {
			...base,
			owner_id: ownerId,
			message_count: 0,
			total_message_sent: 0,
			member_count: 1,
			thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false }
		};
	}
	return { ...base, position, topic: channel.topic ?? null, permission_overwrites: channel.permissionOverwrites ?? [] };
}

/** A direct-message channel object as Discord sends it. */
export function apiDmChannel(id: string, recipient: ApiObject): ApiObject {
	return { id, type: ChannelType.DM, recipients: [recipient], last_message_id: null, flags: 0 };
}

/** A guild member object as Discord sends it, with its user. */
export function apiMember(user: ApiObject, roles: readonly string[], nick: string | null, joinedAt: string): ApiObject {
	return {
		user,
		nick,
		avatar: null,
		banner: null,
		roles: [...roles],
		joined_at: joinedAt,
		premium_since: null,
		deaf: false,
		mute: false,
		flags: 0,
		pending: false,
		communication_disabled_until: null
	};
}

/** Guild fields discord.js reads that no fake test needs to vary. */
export const GUILD_DEFAULTS: ApiObject = {
	icon: null,
	splash: null,
	discovery_splash: null,
	banner: null,
	description: null,
	afk_channel_id: null,
	afk_timeout: 300,
	verification_level: 0,
	default_message_notifications: 0,
	explicit_content_filter: 0,
	mfa_level: 0,
	nsfw_level: 0,
	premium_tier: 0,
	premium_subscription_count: 0,
	premium_progress_bar_enabled: false,
	preferred_locale: 'en-US',
	features: [],
	emojis: [],
	stickers: [],
	application_id: null,
	system_channel_id: null,
	system_channel_flags: 0,
	rules_channel_id: null,
	public_updates_channel_id: null,
	safety_alerts_channel_id: null,
	vanity_url_code: null,
	max_video_channel_users: 25
};
