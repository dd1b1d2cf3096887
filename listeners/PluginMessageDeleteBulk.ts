import { Events, Listener } from '@sapphire/framework';
import type { Message, PartialMessage, ReadonlyCollection } from 'discord.js';
import { forwardMessagesChange, messagesChange } from '../src/plugin/changes';

/** Messages purged at once stop the background summaries citing them from serving. */
export class PluginListener extends Listener<typeof Events.MessageBulkDelete> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.MessageBulkDelete });
	}

	public async run(messages: ReadonlyCollection<string, Message | PartialMessage>): Promise<void> {
		await forwardMessagesChange(messagesChange([...messages.values()], 'deleted'));
	}
}
