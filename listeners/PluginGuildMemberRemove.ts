import { Events, Listener } from '@sapphire/framework';
import type { GuildMember, PartialGuildMember } from 'discord.js';
import { forwardMemberLeft } from '../src/plugin/servers';

/**
 * A member left a server (kicked, banned or gone; discord.js emits this only with the Guild Members intent): with
 * `MEMORY_FORGET_MEMBERS_WHO_LEAVE` on, what memory holds of them there is erased. A failure is reported as `memoryError`.
 */
export class PluginListener extends Listener<typeof Events.GuildMemberRemove> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.GuildMemberRemove });
	}

	public async run(member: GuildMember | PartialGuildMember): Promise<void> {
		await forwardMemberLeft(member.guild.id, member.id);
	}
}
