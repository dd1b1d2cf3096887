import { type ChatInputCommandInteraction, type PermissionResolvable, PermissionsBitField } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { PrivacyLevel } from '../../src/engine';
import { botWideLine } from './botWide';
import { answer, duration } from './reply';

/** Options of {@link runStatus}. */
export interface StatusOptions {
	/** One persona's memory of the channel; left out, every persona's. */
	personaId?: string | null;
	/** Members with it also see the bot-wide counters; left out, nobody does. */
	moderatorPermission?: PermissionResolvable;
}

/** `/session status`: what memory holds about the member, and for how long; moderators also see the bot-wide counters. */
export async function runStatus(
	interaction: ChatInputCommandInteraction,
	memory: MemoryEngine,
	{ personaId, moderatorPermission }: StatusOptions = {}
): Promise<void> {
	const status = await memory.status(interaction.user.id, {
		serverId: interaction.guildId,
		channelId: interaction.channelId,
		...(personaId === undefined ? {} : { personaId })
	});
	const lines = [
		'**Your memory**',
		`Privacy level: **${PrivacyLevel[status.privacyLevel]!.toLowerCase()}**${status.crossServerOptIn ? ' · cross-server memory on' : ''}`,
		`Short-term conversations: ${status.shortTermEntries} · archived messages you wrote: ${status.archivedMessages}`,
		`Profile: ${status.hasProfile ? 'yes' : 'none'} · topic notes: ${status.topics}`,
		status.current
			? `This channel: ${status.current.messages} recent messages${status.current.hasSummary ? ' and a summary' : ''}, forgotten in ` +
				`${duration(status.current.expiresInMs)}`
			: 'This channel: nothing remembered right now',
		`Storage: ${status.storage} · recent messages kept ${status.ttl.shortTermHours} h, summaries ${status.ttl.summaryHours} h, archive ` +
			`${status.ttl.archiveDays} days`
	];
	// Only in a server, where Discord tells the member's permissions: a DM has no moderators.
	const moderator =
		moderatorPermission !== undefined &&
		interaction.inGuild() &&
		interaction.memberPermissions?.has(new PermissionsBitField(moderatorPermission));
	if (moderator) lines.push(botWideLine(memory.stats()));
	await answer(interaction, lines.join('\n'));
}
