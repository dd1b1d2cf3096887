import type { ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { PrivacyLevel } from '../../src/engine';
import { confirmRow, ERASES_EVERYTHING } from './confirm';
import { answer } from './reply';

export const EXPLAINED: Record<PrivacyLevel, string> = {
	[PrivacyLevel.MINIMAL]: 'conversations are remembered, and so are a profile and topic notes about you',
	[PrivacyLevel.PARTIAL]: 'conversations are remembered, but no profile or topic notes about you',
	[PrivacyLevel.FULL]: 'you are invisible: nothing you say is remembered, and your messages are left out of everyone’s memory'
};

/**
 * `/session privacy [level] [cross_server]`: shows or changes the member's privacy; `full` erases everything
 * first, so it asks for confirmation (see PluginConfirmButton). `hostLevel` is the level the host's resolver
 * sets for the member, which a choice here would not change.
 */
export async function runPrivacy(
	interaction: ChatInputCommandInteraction,
	memory: MemoryEngine,
	options: { hostLevel?: PrivacyLevel; timeoutMs: number }
): Promise<void> {
	const { hostLevel, timeoutMs } = options;
	const level = interaction.options.getString('level');
	const crossServer = interaction.options.getBoolean('cross_server');
	const parsed = level === null ? undefined : PrivacyLevel[level.toUpperCase() as keyof typeof PrivacyLevel];
	if (level !== null && parsed === undefined) {
		await answer(interaction, `Unknown privacy level "${level.slice(0, 40)}". Choose minimal, partial or full.`);
		return;
	}
	if (hostLevel !== undefined && parsed !== undefined && parsed !== hostLevel) {
		await answer(
			interaction,
			`This bot sets your privacy level itself: it is **${PrivacyLevel[hostLevel]!.toLowerCase()}**: ${EXPLAINED[hostLevel]}. Nothing ` +
				`was changed; ask the bot’s owners how to change it.`
		);
		return;
	}
	if (parsed === PrivacyLevel.FULL) {
		const expiresAt = Date.now() + timeoutMs;
		await answer(interaction, {
			content:
				`Choosing **full** makes you invisible to memory from now on, and first deletes everything it holds about you: ` +
				`${ERASES_EVERYTHING}. It cannot be undone. The buttons expire <t:${Math.floor(expiresAt / 1000)}:R>.`,
			components: [
				confirmRow(
					{ kind: 'privacy-full', userId: interaction.user.id, expiresAt, ...(crossServer === null ? {} : { crossServer }) },
					'Forget everything and go full'
				)
			]
		});
		return;
	}
	const settings =
		parsed === undefined && crossServer === null
			? await memory.getUserSettings(interaction.user.id)
			: await memory.setUserSettings(interaction.user.id, { privacyLevel: parsed, crossServerOptIn: crossServer ?? undefined });
	const name = PrivacyLevel[settings.privacyLevel]!.toLowerCase();
	await answer(
		interaction,
		`Privacy level: **${name}**: ${EXPLAINED[settings.privacyLevel]}.\nCross-server memory: **${settings.crossServerOptIn ? 'on' : 'off'}**${
			settings.crossServerOptIn ? ' (personas may recall what you said in other servers and DMs)' : ''
		}.`
	);
}
