import { Listener } from '@sapphire/framework';
import { GatewayDispatchEvents, type GatewayMessageUpdateDispatchData } from 'discord.js';
import { editChange, forwardMessagesChange } from '../src/plugin/changes';

/** An edited message keeps only its new text in memory, cached or not; a failure is reported as `memoryError`. */
export class PluginListener extends Listener {
	public constructor(context: Listener.LoaderContext) {
		super(context, { emitter: 'ws', event: GatewayDispatchEvents.MessageUpdate });
	}

	public async run(data: GatewayMessageUpdateDispatchData): Promise<void> {
		await forwardMessagesChange(editChange(data));
	}
}
