import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { PrivacyLevel } from '../src/engine';
import { reportMemoryError } from '../src/plugin/report';
import { SessionText } from '../src/plugin/SessionText';
import { forgetChoicesChanged } from '../src/plugin/forgetChoices';
import { type ConfirmButton, parseConfirmButton } from './session/confirm';
import { levelExplained, levelName } from './session/privacy';
import { answer, deferUpdate, update } from './session/reply';

/** What each confirmation names when it has expired: the command to run again. */
const AGAIN: Record<ConfirmButton['kind'], string> = { 'clear-all': 'clear scope:all', 'privacy-full': 'privacy level:full' };

/**
 * The buttons of `/session clear scope:all` and `/session privacy level:full`, which both erase everything
 * of the member: only the member who asked can confirm, and only in time.
 */
export class PluginInteractionHandler extends InteractionHandler {
	public constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	public override parse(interaction: ButtonInteraction) {
		const button = parseConfirmButton(interaction.customId);
		return button ? this.some(button) : this.none();
	}

	public async run(interaction: ButtonInteraction, button: ConfirmButton): Promise<void> {
		const text = new SessionText(interaction.locale);
		if (interaction.user.id !== button.userId) return answer(interaction, text.get('confirm.notYours'));
		if (button.action === 'cancel') return update(interaction, { content: text.get('confirm.cancelled'), components: [] });
		if (Date.now() > button.expiresAt) {
			const again = `/${SessionText.commandName()} ${AGAIN[button.kind]}`;
			return update(interaction, { content: text.get('confirm.expired', { again }), components: [] });
		}
		try {
			// Erasing everything of a member may outlast Discord's 3 seconds on a far store: acknowledge first.
			await deferUpdate(interaction);
			const done = await this.confirmed(button, text).finally(() => forgetChoicesChanged(this.container.memory, button.userId));
			await update(interaction, { content: done, components: [] });
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			await update(interaction, { content: text.get('confirm.unavailable'), components: [] }).catch(() => undefined);
		}
	}

	/** Does what the button confirms; resolves with the answer. */
	private async confirmed(button: ConfirmButton, text: SessionText): Promise<string> {
		const { memory } = this.container;
		if (button.kind === 'clear-all') {
			const { entriesDeleted, messagesRemoved, archivedMessagesRemoved, summariesDropped, topicsDeleted } = await memory.clearAll(
				button.userId
			);
			return text.get('confirm.clearAllDone', { entriesDeleted, messagesRemoved, archivedMessagesRemoved, summariesDropped, topicsDeleted });
		}
		const settings = await memory.setUserSettings(button.userId, {
			privacyLevel: PrivacyLevel.FULL,
			...(button.crossServer === undefined ? {} : { crossServerOptIn: button.crossServer })
		});
		return text.get('confirm.privacyFullDone', {
			level: levelName(settings.privacyLevel, text),
			explained: levelExplained(settings.privacyLevel, text)
		});
	}
}
