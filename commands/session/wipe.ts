import { type ChatInputCommandInteraction, type PermissionResolvable, PermissionsBitField } from 'discord.js';
import type { MemoryEngine } from '../../src/engine/MemoryEngine';
import { answer } from './reply';

/** `/session wipe-channel [channel]`: a moderator forgets everything remembered in a channel. */
export async function runWipeChannel(interaction: ChatInputCommandInteraction, memory: MemoryEngine, permission: PermissionResolvable): Promise<void> {
	if (!interaction.inGuild() || !interaction.guildId) {
		await answer(interaction, 'Channel memory can only be wiped in a server.');
		return;
	}
	const channel = interaction.options.getChannel('channel') ?? interaction.channel;
	const channelId = channel?.id ?? interaction.channelId;
	const needed = new PermissionsBitField(permission);
	const granted = interaction.guild?.channels.cache.get(channelId) && interaction.member && 'permissionsIn' in interaction.member ? interaction.member.permissionsIn(channelId) : interaction.memberPermissions;
	if (!granted?.has(needed)) {
		await answer(interaction, `Only moderators (${needed.toArray().join(', ')}) can wipe a channel’s memory.`);
		return;
	}
	const wiped = await memory.wipeChannel(interaction.guildId, channelId);
	await answer(interaction, `Forgot <#${channelId}>: ${wiped.entriesDeleted} conversations and ${wiped.messagesDeleted} archived messages.`);
}
