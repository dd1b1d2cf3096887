import type { ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine/MemoryEngine';
import { PrivacyLevel } from '../../src/engine/types';
import { answer, duration } from './reply';

/** `/session status`: what memory holds about the member, and for how long. */
export async function runStatus(interaction: ChatInputCommandInteraction, memory: MemoryEngine, personaId?: string | null): Promise<void> {
	const status = await memory.status(interaction.user.id, { serverId: interaction.guildId, channelId: interaction.channelId, ...(personaId === undefined ? {} : { personaId }) });
	const lines = [
		'**Your memory**',
		`Privacy level: **${PrivacyLevel[status.privacyLevel]!.toLowerCase()}**${status.crossServerOptIn ? ' · cross-server memory on' : ''}`,
		`Short-term conversations: ${status.shortTermEntries} · archived messages you wrote: ${status.archivedMessages}`,
		`Profile: ${status.hasProfile ? 'yes' : 'none'} · topic notes: ${status.topics}`,
		status.current
			? `This channel: ${status.current.messages} recent messages${status.current.hasSummary ? ' and a summary' : ''}, forgotten in ${duration(status.current.expiresInMs)}`
			: 'This channel: nothing remembered right now',
		`Storage: ${status.storage} · recent messages kept ${status.ttl.shortTermHours} h, summaries ${status.ttl.summaryHours} h, archive ${status.ttl.archiveDays} days`
	];
	await answer(interaction, lines.join('\n'));
}
