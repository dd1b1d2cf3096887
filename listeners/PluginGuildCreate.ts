import { Events, Listener } from '@sapphire/framework';
import type { Guild } from 'discord.js';
import { forwardServerChange } from '../src/plugin/servers';

/** The bot joined a server again: a purge still pending for it is cancelled. */
export class PluginListener extends Listener<typeof Events.GuildCreate> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.GuildCreate });
	}

	public async run(guild: Guild): Promise<void> {
		await forwardServerChange(guild.id, 'rejoined');
	}
}
