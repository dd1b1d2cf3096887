import { Events, Listener } from '@sapphire/framework';
import type { Guild } from 'discord.js';
import { reportMemoryError } from '../src/plugin/report';

/** A server is there again after a restart (the bot was re-invited while offline): a purge still pending for it is cancelled. */
export class PluginListener extends Listener<typeof Events.GuildAvailable> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.GuildAvailable });
	}

	public async run(guild: Guild): Promise<void> {
		try {
			await this.container.memory.serverRejoined(guild.id);
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'server-change', serverId: guild.id });
		}
	}
}
