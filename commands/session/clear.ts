import type { ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { confirmRow } from './confirm';
import { answer } from './reply';

/** `/session clear [scope]`: forgets the member's short-term memory, or asks before forgetting everything. */
export async function runClear(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText, timeoutMs: number): Promise<void> {
	const scope = interaction.options.getString('scope') ?? 'short-term';
	if (scope === 'short-term') {
		const cleared = await memory.clearShortTerm(interaction.user.id);
		const days = memory.config.archiveRetentionDays;
		const archive = days > 0 ? text.get('clear.archiveKept', { days }) : '';
		await answer(interaction, text.get('clear.done', { entries: cleared.entriesDeleted, messages: cleared.messagesRemoved, archive }));
		return;
	}
	if (scope !== 'all') {
		await answer(interaction, text.get('clear.unknownScope', { scope: scope.slice(0, 40) }));
		return;
	}
	const expiresAt = Date.now() + timeoutMs;
	await answer(interaction, {
		content: text.get('clear.confirm', { erases: text.get('erasesEverything'), expires: `<t:${Math.floor(expiresAt / 1000)}:R>` }),
		components: [confirmRow({ kind: 'clear-all', userId: interaction.user.id, expiresAt }, text, 'clear.confirmButton')]
	});
}
