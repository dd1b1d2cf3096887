import { type PermissionResolvable, PermissionsBitField } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { resolvedPrivacyLevel } from '../../src/plugin/privacy';
import type { SessionText } from '../../src/plugin/SessionText';
import { botWideLine } from './botWide';
import { pagedAnswer } from './pages';
import { levelName } from './privacy';
import { answer, duration, type SessionInteraction } from './reply';

/** Options of {@link runStatus}. */
export interface StatusOptions {
	/** One persona's memory of the channel; left out, every persona's. */
	personaId?: string | null;
	/** Members with it also see the bot-wide counters; left out, nobody does. */
	moderatorPermission?: PermissionResolvable;
}

/** `/session status`: what memory holds about the member, and for how long; moderators also see the bot-wide counters. */
export async function runStatus(
	interaction: SessionInteraction,
	memory: MemoryEngine,
	text: SessionText,
	options: StatusOptions = {}
): Promise<void> {
	await answer(
		interaction,
		pagedAnswer(await statusText(interaction, memory, text, options), { view: 'status', userId: interaction.user.id }, text)
	);
}

/** The text of `/session status`, whole, for the member and the channel of `interaction` (the command or a page button). */
export async function statusText(
	interaction: SessionInteraction,
	memory: MemoryEngine,
	text: SessionText,
	{ personaId, moderatorPermission }: StatusOptions = {}
): Promise<string> {
	// A host resolver decides the level: sync it first, so the answer shows the level in force.
	await resolvedPrivacyLevel(interaction.user.id);
	const status = await memory.status(interaction.user.id, {
		serverId: interaction.guildId,
		channelId: interaction.channelId,
		...(personaId === undefined ? {} : { personaId })
	});
	const { current, ttl } = status;
	const lines = [
		text.get('status.heading'),
		text.get('status.privacy', { level: levelName(status.privacyLevel, text) }) +
			(status.crossServerOptIn ? text.get('status.crossServerOn') : ''),
		text.get('status.counts', { entries: status.shortTermEntries, archived: status.archivedMessages }),
		text.get('status.profile', { profile: text.get(status.hasProfile ? 'status.yes' : 'status.none'), topics: status.topics }),
		text.get('status.sources', {
			count: status.contextSources,
			sources: text.get('apps.sources.name'),
			shortTermHours: status.ttl.shortTermHours
		}),
		current
			? text.get('status.channel', {
					messages: current.messages,
					summary: current.hasSummary ? text.get('status.channelSummary') : '',
					expiresIn: duration(current.expiresInMs, text)
				})
			: text.get('status.channelEmpty'),
		text.get('status.storage', {
			storage: status.storage,
			shortTermHours: ttl.shortTermHours,
			summaryHours: ttl.summaryHours,
			archiveDays: ttl.archiveDays
		})
	];
	// Only in a server, where Discord tells the member's permissions: a DM has no moderators.
	const moderator =
		moderatorPermission !== undefined &&
		interaction.inGuild() &&
		interaction.memberPermissions?.has(new PermissionsBitField(moderatorPermission));
	if (moderator) lines.push(botWideLine(memory.stats(), text));
	return lines.join('\n');
}
