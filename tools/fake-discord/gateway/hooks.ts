import { GatewayDispatchEvents } from 'discord.js';
import type { FakeContext } from '../context';
import type { ApiObject } from '../types';
import type { GatewayConnection } from './GatewayConnection';
import type { GatewayHooks } from './FakeGateway';

/** The fake Discord's answers on the gateway: READY and GUILD_CREATEs after IDENTIFY, member chunks on request. */
export function gatewayHooks(context: () => FakeContext): GatewayHooks {
	return {
		onIdentify: (connection) => sendReady(context(), connection),
		onRequestGuildMembers: (connection, request) => sendMemberChunk(context(), connection, request)
	};
}

/** READY lists every guild as unavailable; discord.js waits for a GUILD_CREATE of each before it emits `ready`. */
async function sendReady(context: FakeContext, connection: GatewayConnection): Promise<void> {
	const { state } = context;
	await connection.dispatch(GatewayDispatchEvents.Ready, {
		v: 10,
		user: state.botUser,
		guilds: state.guilds.map((guild) => ({ id: guild.id, unavailable: true })),
		session_id: connection.sessionId,
		resume_gateway_url: context.gatewayUrl(),
		shard: [0, 1],
		application: { id: state.applicationId, flags: 0 },
		private_channels: [],
		relationships: [],
		presences: [],
		guild_join_requests: [],
		geo_ordered_rtc_regions: [],
		user_settings: {},
		_trace: ['fake-discord']
	});
	for (const guild of state.guilds) await connection.dispatch(GatewayDispatchEvents.GuildCreate, state.guildCreatePayload(guild.id));
}

/** Answers Request Guild Members (op 8) in one GUILD_MEMBERS_CHUNK, by `user_ids` or by username `query`. */
async function sendMemberChunk(context: FakeContext, connection: GatewayConnection, request: ApiObject): Promise<void> {
	const { state } = context;
	const guild = state.findGuild(String(request.guild_id));
	if (!guild) return;
	const wanted = request.user_ids === undefined ? undefined : [request.user_ids].flat().map(String);
	const query = typeof request.query === 'string' ? request.query.toLowerCase() : '';
	let userIds = [...guild.members.keys()].filter((id) =>
		wanted
			? wanted.includes(id)
			: String(state.findUser(id)?.username ?? '')
					.toLowerCase()
					.startsWith(query)
	);
	const limit = Number(request.limit ?? 0);
	if (limit > 0) userIds = userIds.slice(0, limit);
	await connection.dispatch(GatewayDispatchEvents.GuildMembersChunk, {
		guild_id: guild.id,
		members: userIds.map((id) => state.apiMember(guild.id, id)),
		chunk_index: 0,
		chunk_count: 1,
		not_found: wanted?.filter((id) => !guild.members.has(id)) ?? [],
		...(request.nonce === undefined ? {} : { nonce: request.nonce })
	});
}
