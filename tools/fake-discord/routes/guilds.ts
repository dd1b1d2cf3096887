import type { FakeContext } from '../context';
import { discordError, json, type Router } from '../router';

/** A guild, its channels, roles and members. */
export function guildRoutes(router: Router, context: FakeContext): void {
	const { state } = context;
	const unknownGuild = () => discordError(404, 10004, 'Unknown Guild');
	router
		.on('GET', '/guilds/:guildId', ({ params }) =>
			state.findGuild(params.guildId!) ? json(state.guildPayload(params.guildId!)) : unknownGuild()
		)
		.on('GET', '/guilds/:guildId/channels', ({ params }) => {
			const guild = state.findGuild(params.guildId!);
			return guild ? json(guild.channelIds.map((id) => state.findChannel(id))) : unknownGuild();
		})
		.on('GET', '/guilds/:guildId/roles', ({ params }) => {
			const guild = state.findGuild(params.guildId!);
			return guild ? json(guild.roles) : unknownGuild();
		})
		.on('GET', '/guilds/:guildId/members', ({ params, query }) => {
			const guild = state.findGuild(params.guildId!);
			if (!guild) return unknownGuild();
			const limit = Number(query.limit ?? 1);
			const after = BigInt(query.after ?? 0);
			const userIds = [...guild.members.keys()].filter((id) => BigInt(id) > after).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
			return json(userIds.slice(0, limit).map((id) => state.apiMember(guild.id, id)));
		})
		.on('GET', '/guilds/:guildId/members/:userId', ({ params }) => {
			if (!state.findGuild(params.guildId!)) return unknownGuild();
			const member = state.apiMember(params.guildId!, params.userId!);
			return member ? json(member) : discordError(404, 10007, 'Unknown Member');
		});
}
