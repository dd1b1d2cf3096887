import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { answer } from './reply';

/** Prefix of the confirmation buttons' custom ids: `memory:clear-all:<confirm|cancel>:<userId>:<expiresAt>`. */
export const CLEAR_ALL_PREFIX = 'memory:clear-all';

/** A parsed confirmation button. */
export interface ClearAllButton {
	action: 'confirm' | 'cancel';
	userId: string;
	expiresAt: number;
}

export function clearAllButtonId(button: ClearAllButton): string {
	return `${CLEAR_ALL_PREFIX}:${button.action}:${button.userId}:${button.expiresAt}`;
}

export function parseClearAllButton(customId: string): ClearAllButton | null {
	const [memory, clear, action, userId, expiresAt] = customId.split(':');
	if (`${memory}:${clear}` !== CLEAR_ALL_PREFIX || (action !== 'confirm' && action !== 'cancel') || !userId || !/^\d+$/.test(expiresAt ?? ''))
		return null;
	return { action, userId, expiresAt: Number(expiresAt) };
}

/** `/session clear [scope]`: forgets the member's short-term memory, or asks before forgetting everything. */
export async function runClear(interaction: ChatInputCommandInteraction, memory: MemoryEngine, timeoutMs: number): Promise<void> {
	const scope = interaction.options.getString('scope') ?? 'short-term';
	if (scope === 'short-term') {
		const cleared = await memory.clearShortTerm(interaction.user.id);
		await answer(
			interaction,
			`Forgot your recent conversations (${cleared.entriesDeleted} conversations, ${cleared.messagesRemoved} of your messages in ` +
				`shared channels).`
		);
		return;
	}
	if (scope !== 'all') {
		await answer(interaction, `Unknown scope "${scope.slice(0, 40)}". Use short-term or all.`);
		return;
	}
	const expiresAt = Date.now() + timeoutMs;
	const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
		new ButtonBuilder()
			.setCustomId(clearAllButtonId({ action: 'confirm', userId: interaction.user.id, expiresAt }))
			.setLabel('Forget everything')
			.setStyle(ButtonStyle.Danger),
		new ButtonBuilder()
			.setCustomId(clearAllButtonId({ action: 'cancel', userId: interaction.user.id, expiresAt }))
			.setLabel('Cancel')
			.setStyle(ButtonStyle.Secondary)
	);
	await answer(interaction, {
		content:
			`This deletes everything memory holds about you: recent conversations, archived messages you wrote, summaries built from ` +
			`them, your profile and topic notes. It cannot be undone. The buttons expire <t:${Math.floor(expiresAt / 1000)}:R>.`,
		components: [row]
	});
}
