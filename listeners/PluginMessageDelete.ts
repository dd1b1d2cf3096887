import { Events, Listener } from '@sapphire/framework';
import type { Message, PartialMessage } from 'discord.js';
import { forwardMessagesChange, messagesChange } from '../src/plugin/changes';

/** A deleted message stops a background summary citing it from serving; a failure is reported as `memoryError`. */
export class PluginListener extends Listener<typeof Events.MessageDelete> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.MessageDelete });
	}

	public async run(message: Message | PartialMessage): Promise<void> {
		await forwardMessagesChange(messagesChange([message], 'deleted'));
	}
}
