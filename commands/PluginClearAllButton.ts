import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import { type ButtonInteraction, MessageFlags } from 'discord.js';
import { reportMemoryError } from '../src/plugin/report';
import { type ClearAllButton, parseClearAllButton } from './session/clear';

/** The buttons of `/session clear scope:all`: only the member who asked can confirm, and only in time. */
export class PluginInteractionHandler extends InteractionHandler {
	public constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	public override parse(interaction: ButtonInteraction) {
		const button = parseClearAllButton(interaction.customId);
		return button ? this.some(button) : this.none();
	}

	public async run(interaction: ButtonInteraction, button: ClearAllButton): Promise<void> {
		if (interaction.user.id !== button.userId) {
			await interaction.reply({ content: 'This confirmation belongs to someone else.', flags: MessageFlags.Ephemeral });
			return;
		}
		if (button.action === 'cancel') {
			await interaction.update({ content: 'Cancelled: nothing was deleted.', components: [] });
			return;
		}
		if (Date.now() > button.expiresAt) {
			await interaction.update({
				content: 'This confirmation expired: nothing was deleted. Run `/session clear scope:all` again.',
				components: []
			});
			return;
		}
		try {
			const erased = await this.container.memory.clearAll(interaction.user.id);
			await interaction.update({ content: `Done: everything memory held about you is gone (${describe(erased)}).`, components: [] });
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			await interaction
				.update({ content: 'Memory is unavailable right now; nothing was deleted. Try again in a moment.', components: [] })
				.catch(() => undefined);
		}
	}
}

function describe(counts: object): string {
	return Object.entries(counts)
		.filter(([, value]) => typeof value === 'number')
		.map(([key, value]) => `${key.replace(/([A-Z])/g, ' $1').toLowerCase()}: ${value}`)
		.join(', ');
}
