import { Events, Listener } from '@sapphire/framework';
import type { Message, PartialMessage } from 'discord.js';
import { forwardMessagesChange, isContentEdit, messagesChange } from '../src/plugin/changes';

/** An edited message stops a background summary citing it from serving; a failure is reported as `memoryError`. */
export class PluginListener extends Listener<typeof Events.MessageUpdate> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: Events.MessageUpdate });
	}

	public async run(oldMessage: Message | PartialMessage, newMessage: Message): Promise<void> {
		if (!isContentEdit(oldMessage, newMessage)) return;
		await forwardMessagesChange(messagesChange([newMessage], 'edited'));
	}
}
