import type { ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { PrivacyLevel } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { forgetChoicesChanged } from '../../src/plugin/forgetChoices';
import { confirmRow } from './confirm';
import { answer } from './reply';

/** A privacy level's name as the member reads it (`minimal`, `partial`, `full` in English). */
export function levelName(level: PrivacyLevel, text: SessionText): string {
	return text.get(`privacy.level.${PrivacyLevel[level]!.toLowerCase() as 'minimal' | 'partial' | 'full'}`);
}

/** What a privacy level means for the member. */
export function levelExplained(level: PrivacyLevel, text: SessionText): string {
	return text.get(`privacy.explained.${PrivacyLevel[level]!.toLowerCase() as 'minimal' | 'partial' | 'full'}`);
}

/**
 * `/session privacy [level] [cross_server]`: shows or changes the member's privacy; `full` erases everything
 * first, so it asks for confirmation (see PluginConfirmButton). `hostLevel` is the level the host's resolver
 * sets for the member, which a choice here would not change.
 */
export async function runPrivacy(
	interaction: ChatInputCommandInteraction,
	memory: MemoryEngine,
	text: SessionText,
	options: { hostLevel?: PrivacyLevel; timeoutMs: number }
): Promise<void> {
	const { hostLevel, timeoutMs } = options;
	const level = interaction.options.getString('level');
	const crossServer = interaction.options.getBoolean('cross_server');
	const parsed = level === null ? undefined : PrivacyLevel[level.toUpperCase() as keyof typeof PrivacyLevel];
	if (level !== null && parsed === undefined) {
		await answer(interaction, text.get('privacy.unknownLevel', { level: level.slice(0, 40) }));
		return;
	}
	if (hostLevel !== undefined && parsed !== undefined && parsed !== hostLevel) {
		await answer(interaction, text.get('privacy.hostDecides', { level: levelName(hostLevel, text), explained: levelExplained(hostLevel, text) }));
		return;
	}
	if (parsed === PrivacyLevel.FULL) {
		const expiresAt = Date.now() + timeoutMs;
		await answer(interaction, {
			content: text.get('privacy.confirmFull', { erases: text.get('erasesEverything'), expires: `<t:${Math.floor(expiresAt / 1000)}:R>` }),
			components: [
				confirmRow(
					{ kind: 'privacy-full', userId: interaction.user.id, expiresAt, ...(crossServer === null ? {} : { crossServer }) },
					text,
					'privacy.confirmFullButton'
				)
			]
		});
		return;
	}
	const settings =
		parsed === undefined && crossServer === null
			? await memory.getUserSettings(interaction.user.id)
			: await memory.setUserSettings(interaction.user.id, { privacyLevel: parsed, crossServerOptIn: crossServer ?? undefined });
	// Leaving minimal drops the member's topics.
	if (parsed !== undefined) forgetChoicesChanged(memory, interaction.user.id);
	await answer(
		interaction,
		text.get('privacy.current', {
			level: levelName(settings.privacyLevel, text),
			explained: levelExplained(settings.privacyLevel, text),
			crossServer: text.get(settings.crossServerOptIn ? 'privacy.on' : 'privacy.off'),
			crossServerExplained: settings.crossServerOptIn ? text.get('privacy.crossServerExplained') : ''
		})
	);
}
