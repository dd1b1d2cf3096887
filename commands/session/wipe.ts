import { ChannelType, type ChatInputCommandInteraction, type PermissionResolvable, PermissionsBitField } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { answer } from './reply';

/** The channels `/session wipe-channel` takes: those a persona talks in. */
export const WIPEABLE_CHANNEL_TYPES = [
	ChannelType.GuildText,
	ChannelType.PublicThread,
	ChannelType.PrivateThread,
	ChannelType.GuildAnnouncement
] as const;

/** `/session wipe-channel [channel]`: a moderator forgets everything remembered in a channel. */
export async function runWipeChannel(
	interaction: ChatInputCommandInteraction,
	memory: MemoryEngine,
	permission: PermissionResolvable
): Promise<void> {
	if (!interaction.inGuild() || !interaction.guildId) {
		await answer(interaction, 'Channel memory can only be wiped in a server.');
		return;
	}
	const picked = interaction.options.getChannel('channel');
	// A channel Discord did not resolve must never fall back to this one: that would wipe the wrong channel.
	if (!picked && interaction.options.get('channel')) {
		await answer(interaction, 'I cannot see that channel. Pick one from the list; nothing was wiped.');
		return;
	}
	if (picked && 'guildId' in picked && picked.guildId && picked.guildId !== interaction.guildId) {
		await answer(interaction, `<#${picked.id}> is not in this server; nothing was wiped.`);
		return;
	}
	if (picked && !(WIPEABLE_CHANNEL_TYPES as readonly ChannelType[]).includes(picked.type)) {
		await answer(interaction, `Only text and announcement channels and threads hold memory; <#${picked.id}> is not one, so nothing was wiped.`);
		return;
	}
	const channel = picked ?? interaction.channel;
	const channelId = channel?.id ?? interaction.channelId;
	const needed = new PermissionsBitField(permission);
	const granted =
		interaction.guild?.channels.cache.get(channelId) && interaction.member && 'permissionsIn' in interaction.member
			? interaction.member.permissionsIn(channelId)
			: interaction.memberPermissions;
	if (!granted?.has(needed)) {
		await answer(interaction, `Only moderators (${needed.toArray().join(', ')}) can wipe a channel’s memory.`);
		return;
	}
	const wiped = await memory.wipeChannel(interaction.guildId, channelId);
	await answer(interaction, `Forgot <#${channelId}>: ${wiped.entriesDeleted} conversations and ${wiped.messagesDeleted} archived messages.`);
}
