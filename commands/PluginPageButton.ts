import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import type { ButtonInteraction } from 'discord.js';
import { pluginOptions } from '../src/plugin/pluginOptions';
import { reportMemoryError } from '../src/plugin/report';
import { SessionText } from '../src/plugin/SessionText';
import { type PageButton, pagedAnswer, PAGES_LIFETIME_MS, parsePageButton } from './session/pages';
import { profileText } from './session/profile';
import { answer, deferUpdate, update } from './session/reply';
import { statusText } from './session/status';

/**
 * The ◀ ▶ buttons of `/session profile` and `/session status` when they take more than one message: only the member
 * who asked can turn the pages, and only for a while. Each page is read from the store again, so it shows what is
 * stored now (nothing, after `/session clear scope:all`).
 */
export class PluginInteractionHandler extends InteractionHandler {
	public constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	public override parse(interaction: ButtonInteraction) {
		const button = parsePageButton(interaction.customId);
		return button ? this.some(button) : this.none();
	}

	public async run(interaction: ButtonInteraction, button: PageButton): Promise<void> {
		const text = new SessionText(interaction.locale);
		const again = `/${SessionText.commandName()} ${button.view}`;
		if (interaction.user.id !== button.userId) return answer(interaction, text.get('pages.notYours', { again }));
		if (Date.now() > button.expiresAt)
			return update(interaction, { content: text.get('pages.expired', { again, minutes: PAGES_LIFETIME_MS / 60_000 }), components: [] });
		try {
			// The page is read from the store, which may be far: acknowledge first.
			await deferUpdate(interaction);
			await update(interaction, pagedAnswer(await this.body(interaction, button, text), button, text));
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			await update(interaction, { content: text.get('reply.unavailable'), components: [] }).catch(() => undefined);
		}
	}

	/** The whole text the pages are cut from, as it is now. */
	private body(interaction: ButtonInteraction, button: PageButton, text: SessionText): Promise<string> {
		const { memory } = this.container;
		if (button.view === 'profile') return profileText(button.userId, memory, text);
		return statusText(interaction, memory, text, { moderatorPermission: pluginOptions(this.container.client).moderatorPermission });
	}
}
