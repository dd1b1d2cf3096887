import { randomBytes } from 'node:crypto';
import { ApplicationIntegrationType, ChannelType, InteractionContextType, type InteractionType } from 'discord.js';
import { DEFAULT_EVERYONE_PERMISSIONS } from './entities';
import type { SnowflakeGenerator } from './snowflakes';
import type { FakeState } from './state';
import type { ApiObject, UserRef } from './types';

/** Who acts, and where: a guild channel (the guild is read from it) or, without a channel, a DM with the bot. */
export interface InteractionActor {
	user: UserRef;
	/** A channel the fake knows; omit it for the user's DM with the bot. */
	channelId?: string;
	/** Permissions sent as `member.permissions`, instead of those computed from the member's roles and the channel. */
	memberPermissions?: bigint | string;
	/** @default 'en-US' */
	locale?: string;
	/** Sent as `attachment_size_limit`: the most bytes the interaction's answers may upload. @default 10 MiB, Discord's default */
	attachmentSizeLimit?: number;
}

/** Discord's attachment limit for a server without boosts and a member without Nitro. */
export const DEFAULT_ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** An interaction ready to dispatch. */
export interface BuiltInteraction {
	id: string;
	token: string;
	channelId: string;
	guildId: string | null;
	payload: ApiObject;
}

/**
 * An INTERACTION_CREATE payload, without its `data`, with every field discord.js reads before a command runs
 * (`entitlements`, `authorizing_integration_owners`, `app_permissions`, the partial channel, …).
 */
export function buildInteraction(
	state: FakeState,
	snowflakes: SnowflakeGenerator,
	type: InteractionType,
	actor: InteractionActor,
	extra: ApiObject = {}
): BuiltInteraction {
	const user = state.user(actor.user);
	const userId = String(user.id);
	const channel = actor.channelId ? state.findChannel(actor.channelId) : state.dmChannelWith(userId);
	if (!channel) throw new Error(`fake Discord: unknown channel ${actor.channelId}; list it in a guild or in dmChannels`);
	const channelId = String(channel.id);
	const guildId = channel.type === ChannelType.DM ? null : String(channel.guild_id);
	const id = snowflakes.next();
	const token = `fake-interaction-${randomBytes(18).toString('base64url')}`;
	const locale = actor.locale ?? 'en-US';

	const where = guildId
		? guildFields(state, guildId, channelId, userId, actor.memberPermissions)
		: {
				user,
				app_permissions: String(DEFAULT_EVERYONE_PERMISSIONS),
				context: InteractionContextType.BotDM,
				authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: '0' }
			};
	const payload: ApiObject = {
		id,
		application_id: state.applicationId,
		type,
		token,
		version: 1,
		channel_id: channelId,
		channel: guildId ? { ...channel, permissions: where.app_permissions } : channel,
		locale,
		entitlements: [],
		attachment_size_limit: actor.attachmentSizeLimit ?? DEFAULT_ATTACHMENT_SIZE_LIMIT,
		...where,
		...extra
	};
	return { id, token, channelId, guildId, payload };
}

function guildFields(state: FakeState, guildId: string, channelId: string, userId: string, override: bigint | string | undefined): ApiObject {
	state.ensureMember(guildId, userId);
	return {
		guild_id: guildId,
		guild: { id: guildId, locale: 'en-US', features: [] },
		guild_locale: 'en-US',
		member: { ...state.apiMember(guildId, userId), permissions: String(override ?? state.permissionsIn(channelId, userId)) },
		app_permissions: String(state.permissionsIn(channelId, String(state.botUser.id))),
		context: InteractionContextType.Guild,
		authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: guildId }
	};
}
