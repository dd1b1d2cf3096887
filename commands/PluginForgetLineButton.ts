import { InteractionHandler, InteractionHandlerTypes } from '@sapphire/framework';
import { ActionRowBuilder, type APIButtonComponent, ButtonBuilder, type ButtonInteraction, ComponentType, EmbedBuilder } from 'discord.js';
import { reportMemoryError } from '../src/plugin/report';
import { SessionText } from '../src/plugin/SessionText';
import { type ForgetLineButton, parseForgetLineButton } from './apps/forgetLineButton';
import { numbered } from './apps/sourcesAnswer';
import { deferUpdate, ephemeral, update } from './session/reply';

/**
 * The Forget buttons of What did you remember?: each forgets the message its line shows, as Forget this message does (memory
 * checks it is the member's own, whoever presses), then marks the line and its button forgotten.
 */
export class PluginInteractionHandler extends InteractionHandler {
	public constructor(context: InteractionHandler.LoaderContext, options: InteractionHandler.Options) {
		super(context, { ...options, interactionHandlerType: InteractionHandlerTypes.Button });
	}

	public override parse(interaction: ButtonInteraction) {
		const button = parseForgetLineButton(interaction.customId);
		return button ? this.some(button) : this.none();
	}

	public async run(interaction: ButtonInteraction, button: ForgetLineButton): Promise<void> {
		const text = new SessionText(interaction.locale);
		try {
			// Forgetting goes to the store, which may be far: acknowledge first.
			await deferUpdate(interaction);
			const { outcome } = await this.container.memory.forgetMessage({ ...button, userId: interaction.user.id });
			// The answer stays as it was; why nothing changed comes beside it.
			if (outcome !== 'forgotten') return void (await interaction.followUp(ephemeral(text.get('apps.sources.notForgotten'))));
			await update(interaction, forgottenMarked(interaction, button.number, text));
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			await interaction.followUp(ephemeral(text.get('reply.unavailable'))).catch(() => undefined);
		}
	}
}

/** The answer the button sits on, with line `number` marked forgotten and its button disabled. */
function forgottenMarked(interaction: ButtonInteraction, number: number, text: SessionText) {
	const prefix = numbered(number);
	const embeds = interaction.message.embeds.map((embed) => {
		const lines = (embed.description ?? '').split('\n');
		const marked = lines.map((line) => (line.startsWith(prefix) ? `${prefix}${text.get('apps.sources.forgottenLine')}` : line));
		return EmbedBuilder.from(embed).setDescription(marked.join('\n'));
	});
	const components = interaction.message.components.map((row) =>
		new ActionRowBuilder<ButtonBuilder>().addComponents(
			('components' in row ? row.components : []).flatMap((component) => {
				if (component.type !== ComponentType.Button) return [];
				const button = ButtonBuilder.from(component.toJSON() as APIButtonComponent);
				if ('custom_id' in component.data && component.data.custom_id === interaction.customId)
					button.setLabel(text.get('apps.sources.forgottenButton', { number })).setDisabled(true);
				return [button];
			})
		)
	);
	return { content: interaction.message.content, embeds, components };
}
