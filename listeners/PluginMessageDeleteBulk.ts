import { Listener } from '@sapphire/framework';
import { GatewayDispatchEvents, type GatewayMessageDeleteBulkDispatchData } from 'discord.js';
import { deletionChange, forwardMessagesChange } from '../src/plugin/changes';

/** Messages purged at once leave every copy in memory; a failure is reported as `memoryError`. */
export class PluginListener extends Listener {
	public constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'ws', event: GatewayDispatchEvents.MessageDeleteBulk });
	}

	public async run(data: GatewayMessageDeleteBulkDispatchData): Promise<void> {
		await forwardMessagesChange(deletionChange(data));
	}
}
