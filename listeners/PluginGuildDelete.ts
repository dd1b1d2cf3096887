import { Events, Listener } from '@sapphire/framework';
import type { Guild } from 'discord.js';
import { forwardServerChange } from '../src/plugin/servers';

/**
 * The bot was removed from a server (discord.js emits this only for a removal, not for an outage, which is
 * `guildUnavailable`): everything memory holds of it is erased, at once or after
 * `MEMORY_SERVER_PURGE_GRACE_HOURS`. A failure is reported as `memoryError`.
 */
export class PluginListener extends Listener<typeof Events.GuildDelete> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.GuildDelete });
	}

	public async run(guild: Guild): Promise<void> {
		if (!guild.available) return;
		await forwardServerChange(guild.id, 'removed');
	}
}
