import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import { type ButtonInteraction, MessageFlags } from 'discord.js';
import { PrivacyLevel } from '../src/engine';
import { reportMemoryError } from '../src/plugin/report';
import { type ConfirmButton, parseConfirmButton } from './session/confirm';
import { EXPLAINED } from './session/privacy';

/** What each confirmation names when it is cancelled or has expired. */
const COMMAND: Record<ConfirmButton['kind'], string> = {
	'clear-all': '/session clear scope:all',
	'privacy-full': '/session privacy level:full'
};

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
		if (interaction.user.id !== button.userId) {
			await interaction.reply({ content: 'This confirmation belongs to someone else.', flags: MessageFlags.Ephemeral });
			return;
		}
		if (button.action === 'cancel') {
			await interaction.update({ content: 'Cancelled: nothing was deleted or changed.', components: [] });
			return;
		}
		if (Date.now() > button.expiresAt) {
			await interaction.update({
				content: `This confirmation expired: nothing was deleted or changed. Run \`${COMMAND[button.kind]}\` again.`,
				components: []
			});
			return;
		}
		try {
			await interaction.update({ content: await this.confirmed(button), components: [] });
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			await interaction
				.update({ content: 'Memory is unavailable right now; nothing was deleted. Try again in a moment.', components: [] })
				.catch(() => undefined);
		}
	}

	/** Does what the button confirms; resolves with the answer. */
	private async confirmed(button: ConfirmButton): Promise<string> {
		const { memory } = this.container;
		if (button.kind === 'clear-all') {
			const erased = await memory.clearAll(button.userId);
			return `Done: everything memory held about you is gone (${describe(erased)}).`;
		}
		const settings = await memory.setUserSettings(button.userId, {
			privacyLevel: PrivacyLevel.FULL,
			...(button.crossServer === undefined ? {} : { crossServerOptIn: button.crossServer })
		});
		return `Done: everything memory held about you is gone, and your privacy level is **full**: ${EXPLAINED[settings.privacyLevel]}.`;
	}
}

function describe(counts: object): string {
	return Object.entries(counts)
		.filter(([, value]) => typeof value === 'number')
		.map(([key, value]) => `${key.replace(/([A-Z])/g, ' $1').toLowerCase()}: ${value}`)
		.join(', ');
}
