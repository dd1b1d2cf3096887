import { Command } from '@sapphire/framework';
import { ChannelType, type AutocompleteInteraction, type ChatInputCommandInteraction, PermissionFlagsBits } from 'discord.js';
import { resolvedPrivacyLevel } from '../src/plugin/privacy';
import { reportMemoryError } from '../src/plugin/report';
import { runClear } from './session/clear';
import { runExport } from './session/export';
import { runHelp } from './session/help';
import { malformedOptions } from './session/options';
import { runPrivacy } from './session/privacy';
import { completeTopics, runForget, runProfile } from './session/profile';
import { answer } from './session/reply';
import { runStatus } from './session/status';
import { runWipeChannel, WIPEABLE_CHANNEL_TYPES } from './session/wipe';

/** `/session`: members see and manage their own memory; every answer is ephemeral. */
export class PluginCommand extends Command {
	public constructor(context: Command.LoaderContext, options: Command.Options) {
		// The piece keeps its Plugin… name so it never collides with the host's pieces; Discord sees `/session`.
		super(context, { ...options, description: 'See and manage what this bot remembers about you' });
	}

	public override registerApplicationCommands(registry: Command.Registry): void {
		const guildIds = this.container.client.options.memory?.commandGuildIds ?? [];
		registry.registerChatInputCommand(
			(builder) =>
				builder
					.setName('session')
					.setDescription('See and manage what this bot remembers about you')
					.addSubcommand((sub) => sub.setName('status').setDescription('What is remembered about you, and for how long'))
					.addSubcommand((sub) =>
						sub
							.setName('clear')
							.setDescription('Forget your recent conversations, or everything about you')
							.addStringOption((option) =>
								option
									.setName('scope')
									.setDescription('What to forget')
									.addChoices({ name: 'recent conversations', value: 'short-term' }, { name: 'everything about me', value: 'all' })
							)
					)
					.addSubcommand((sub) => sub.setName('profile').setDescription('Your stored profile and topic notes'))
					.addSubcommand((sub) =>
						sub
							.setName('forget')
							.setDescription('Delete one of your topic notes')
							.addStringOption((option) =>
								option.setName('topic').setDescription('The topic').setRequired(true).setAutocomplete(true).setMaxLength(100)
							)
					)
					.addSubcommand((sub) => sub.setName('export').setDescription('Download everything stored about you as JSON'))
					.addSubcommand((sub) =>
						sub
							.setName('privacy')
							.setDescription('Choose what is remembered about you')
							.addStringOption((option) =>
								option
									.setName('level')
									.setDescription('minimal: everything; partial: no profile; full: nothing at all')
									.addChoices(
										{ name: 'minimal', value: 'minimal' },
										{ name: 'partial', value: 'partial' },
										{ name: 'full', value: 'full' }
									)
							)
							.addBooleanOption((option) =>
								option.setName('cross_server').setDescription('Let personas recall what you said in other servers and DMs')
							)
					)
					.addSubcommand((sub) => sub.setName('help').setDescription('How memory works here'))
					.addSubcommand((sub) =>
						sub
							.setName('wipe-channel')
							.setDescription('Moderators: forget everything remembered in a channel')
							.addChannelOption((option) =>
								option
									.setName('channel')
									.setDescription('The channel (this one by default)')
									.addChannelTypes(...WIPEABLE_CHANNEL_TYPES)
							)
					),
			guildIds.length > 0 ? { guildIds } : {}
		);
	}

	public override async chatInputRun(interaction: ChatInputCommandInteraction): Promise<void> {
		const { memory } = this.container;
		const options = this.container.client.options.memory ?? {};
		const moderatorPermission = options.moderatorPermission ?? PermissionFlagsBits.ManageMessages;
		try {
			switch (interaction.options.getSubcommand(false)) {
				case 'status':
					// A host resolver decides the level: sync it first, so the answer shows the level in force.
					await resolvedPrivacyLevel(interaction.user.id);
					return await runStatus(interaction, memory, { moderatorPermission });
				case 'clear':
					return await runClear(interaction, memory, options.confirmationTimeoutMs ?? 60_000);
				case 'profile':
					return await runProfile(interaction, memory);
				case 'forget':
					return await runForget(interaction, memory);
				case 'export':
					return await runExport(interaction, memory);
				case 'privacy':
					return await runPrivacy(interaction, memory, {
						hostLevel: await resolvedPrivacyLevel(interaction.user.id),
						timeoutMs: options.confirmationTimeoutMs ?? 60_000
					});
				case 'wipe-channel':
					return await runWipeChannel(interaction, memory, moderatorPermission);
				case 'help':
					return await runHelp(interaction);
				default:
					return await answer(interaction, 'Unknown subcommand. Try `/session help`.');
			}
		} catch (error) {
			// A member's malformed options are explained to them; they say nothing about memory.
			const malformed = malformedOptions(error);
			if (malformed) return void (await answer(interaction, malformed).catch(() => undefined));
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			const invalid = error instanceof Error && 'code' in error && (error.code === 'INVALID_INPUT' || error.code === 'PRIVACY_REFUSED');
			await answer(
				interaction,
				invalid ? (error as Error).message : 'Memory is unavailable right now; nothing was changed. Try again in a moment.'
			).catch(() => undefined);
		}
	}

	public override async autocompleteRun(interaction: AutocompleteInteraction): Promise<void> {
		try {
			await completeTopics(interaction, this.container.memory);
		} catch (error) {
			reportMemoryError(this.container.client, error, {
				phase: 'command',
				userId: interaction.user.id,
				channelId: interaction.channelId ?? undefined
			});
			await interaction.respond([]).catch(() => undefined);
		}
	}
}
