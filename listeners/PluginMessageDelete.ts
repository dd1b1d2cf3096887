import { Listener } from '@sapphire/framework';
import { GatewayDispatchEvents, type GatewayMessageDeleteDispatchData } from 'discord.js';
import { deletionChange, forwardMessagesChange } from '../src/plugin/changes';

/** A message deleted on Discord, cached or not, leaves every copy in memory; a failure is reported as `memoryError`. */
export class PluginListener extends Listener {
	public constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'ws', event: GatewayDispatchEvents.MessageDelete });
	}

	public async run(data: GatewayMessageDeleteDispatchData): Promise<void> {
		await forwardMessagesChange(deletionChange(data));
	}
}
