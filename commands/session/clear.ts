import type { ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { confirmRow, ERASES_EVERYTHING } from './confirm';
import { answer } from './reply';

/** `/session clear [scope]`: forgets the member's short-term memory, or asks before forgetting everything. */
export async function runClear(interaction: ChatInputCommandInteraction, memory: MemoryEngine, timeoutMs: number): Promise<void> {
	const scope = interaction.options.getString('scope') ?? 'short-term';
	if (scope === 'short-term') {
		const cleared = await memory.clearShortTerm(interaction.user.id);
		const days = memory.config.archiveRetentionDays;
		const archive = days > 0 ? `your older messages in the archive (searchable for ${days} days after they were sent), ` : '';
		await answer(
			interaction,
			`Forgot your recent conversations: ${cleared.entriesDeleted} of your conversations, and ${cleared.messagesRemoved} messages ` +
				`(yours, and the personas’ replies to you) from shared channels’ recent memory.\nStill kept: ${archive}the summaries ` +
				`personas wrote of shared channels, and your profile and topic notes. \`/session clear scope:all\` forgets those too.`
		);
		return;
	}
	if (scope !== 'all') {
		await answer(interaction, `Unknown scope "${scope.slice(0, 40)}". Use short-term or all.`);
		return;
	}
	const expiresAt = Date.now() + timeoutMs;
	await answer(interaction, {
		content:
			`This deletes everything memory holds about you: ${ERASES_EVERYTHING}. It cannot be undone. The buttons expire ` +
			`<t:${Math.floor(expiresAt / 1000)}:R>.`,
		components: [confirmRow({ kind: 'clear-all', userId: interaction.user.id, expiresAt }, 'Forget everything')]
	});
}
