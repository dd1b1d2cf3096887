import type { MessageContextMenuCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { channelsViewableBy } from '../../src/plugin/context';
import type { SessionText } from '../../src/plugin/SessionText';
import { answer } from '../session/reply';
import { sourcesAnswer } from './sourcesAnswer';

/**
 * What did you remember?: the memories the context of a persona's reply held, as the member may see them now (the channels
 * of this server they can view), with a Forget button on each of their own lines.
 */
export async function runContextSources(interaction: MessageContextMenuCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const { targetMessage } = interaction;
	const visibleChannelIds = interaction.inCachedGuild()
		? channelsViewableBy(interaction.guild, interaction.member, targetMessage.channelId)
		: interaction.guildId === null
			? undefined
			: [targetMessage.channelId];
	const sources = await memory.contextSources(targetMessage.id, {
		userId: interaction.user.id,
		serverId: interaction.guildId,
		channelId: targetMessage.channelId,
		visibleChannelIds
	});
	return answer(interaction, sourcesAnswer(sources, text, memory.config.ttlHours));
}
