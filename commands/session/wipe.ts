import { ChannelType, type ChatInputCommandInteraction, type PermissionResolvable, PermissionsBitField } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
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
	text: SessionText,
	permission: PermissionResolvable
): Promise<void> {
	if (!interaction.inGuild() || !interaction.guildId) {
		await answer(interaction, text.get('wipe.onlyInServer'));
		return;
	}
	const picked = interaction.options.getChannel('channel');
	// A channel Discord did not resolve must never fall back to this one: that would wipe the wrong channel.
	if (!picked && interaction.options.get('channel')) {
		await answer(interaction, text.get('wipe.unseen'));
		return;
	}
	if (picked && 'guildId' in picked && picked.guildId && picked.guildId !== interaction.guildId) {
		await answer(interaction, text.get('wipe.otherServer', { channel: picked.id }));
		return;
	}
	if (picked && !(WIPEABLE_CHANNEL_TYPES as readonly ChannelType[]).includes(picked.type)) {
		await answer(interaction, text.get('wipe.wrongType', { channel: picked.id }));
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
		await answer(interaction, text.get('wipe.moderatorsOnly', { permissions: needed.toArray().join(', ') }));
		return;
	}
	const wiped = await memory.wipeChannel(interaction.guildId, channelId);
	await answer(interaction, text.get('wipe.done', { channel: channelId, entries: wiped.entriesDeleted, messages: wiped.messagesDeleted }));
}
