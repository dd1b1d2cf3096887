import { Events, Listener } from '@sapphire/framework';
import type { Guild } from 'discord.js';
import { forwardServerChange } from '../src/plugin/servers';

/** A server is there again after a restart (the bot was re-invited while offline): a purge still pending for it is cancelled. */
export class PluginListener extends Listener<typeof Events.GuildAvailable> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.GuildAvailable });
	}

	public async run(guild: Guild): Promise<void> {
		await forwardServerChange(guild.id, 'rejoined');
	}
}
