import { Command } from '@sapphire/framework';
import {
	type APIApplicationCommandOptionChoice,
	type AutocompleteInteraction,
	type ChatInputCommandInteraction,
	PermissionFlagsBits,
	type SharedNameAndDescription
} from 'discord.js';
import { pluginOptions } from '../src/plugin/pluginOptions';
import { resolvedPrivacyLevel } from '../src/plugin/privacy';
import { reportMemoryError } from '../src/plugin/report';
import { SessionText } from '../src/plugin/SessionText';
import { SESSION_STRINGS, type SessionStringKey } from '../src/plugin/sessionStrings';
import { runClear } from './session/clear';
import { SessionCooldowns } from './session/cooldowns';
import { runExport } from './session/export';
import { runHelp } from './session/help';
import { malformedOptions } from './session/options';
import { runPrivacy } from './session/privacy';
import { completeForgetChoices, runForget } from './session/forget';
import { runProfile } from './session/profile';
import { answer, deferAnswer } from './session/reply';
import { runStatus } from './session/status';
import { runWipeChannel, WIPEABLE_CHANNEL_TYPES } from './session/wipe';

/** `/session`: members see and manage their own memory; every answer is ephemeral. */
export class PluginCommand extends Command {
	readonly #cooldowns: SessionCooldowns;

	public constructor(context: Command.LoaderContext, options: Command.Options) {
		// The piece keeps its Plugin… name so it never collides with the host's pieces; Discord sees `/session`.
		super(context, { ...options, description: SESSION_STRINGS['command.description'] });
		this.#cooldowns = new SessionCooldowns(pluginOptions(this.container.client).sessionCooldowns);
	}

	public override registerApplicationCommands(registry: Command.Registry): void {
		const guildIds = [...pluginOptions(this.container.client).commandGuildIds];
		const english = new SessionText(null);
		registry.registerChatInputCommand(
			(builder) =>
				builder
					.setName(SessionText.commandName())
					.setNameLocalizations(SessionText.localizations('command.name'))
					.setDescription(english.get('command.description'))
					.setDescriptionLocalizations(SessionText.localizations('command.description'))
					.addSubcommand((sub) => localized(sub, 'status'))
					.addSubcommand((sub) =>
						localized(sub, 'clear').addStringOption((option) =>
							localized(option, 'clear.scope').addChoices(
								choice('clear.scope.shortTerm', 'short-term'),
								choice('clear.scope.all', 'all')
							)
						)
					)
					.addSubcommand((sub) => localized(sub, 'profile'))
					.addSubcommand((sub) =>
						localized(sub, 'forget').addStringOption((option) =>
							localized(option, 'forget.topic').setRequired(true).setAutocomplete(true).setMaxLength(100)
						)
					)
					.addSubcommand((sub) => localized(sub, 'export'))
					.addSubcommand((sub) =>
						localized(sub, 'privacy')
							.addStringOption((option) =>
								localized(option, 'privacy.level').addChoices(
									choice('privacy.level.minimal', 'minimal'),
									choice('privacy.level.partial', 'partial'),
									choice('privacy.level.full', 'full')
								)
							)
							.addBooleanOption((option) => localized(option, 'privacy.crossServer'))
					)
					.addSubcommand((sub) => localized(sub, 'help'))
					.addSubcommand((sub) =>
						localized(sub, 'wipe').addChannelOption((option) =>
							localized(option, 'wipe.channel').addChannelTypes(...WIPEABLE_CHANNEL_TYPES)
						)
					),
			guildIds.length > 0 ? { guildIds } : {}
		);
	}

	public override async chatInputRun(interaction: ChatInputCommandInteraction): Promise<void> {
		const { memory } = this.container;
		const { moderatorPermission, confirmationTimeoutMs } = pluginOptions(this.container.client);
		const text = new SessionText(interaction.locale);
		const subcommand = interaction.options.getSubcommand(false);
		try {
			const cooling = this.#cooldowns.take(subcommand, interaction.user.id);
			if (cooling) return await answer(interaction, cooling.tryAgain(text));
			// Every subcommand but help goes to the store, which may be far: acknowledge first, then fill the answer in.
			if (subcommand !== 'help') await deferAnswer(interaction);
			switch (subcommand) {
				case 'status':
					return await runStatus(interaction, memory, text, { moderatorPermission });
				case 'clear':
					return await runClear(interaction, memory, text, confirmationTimeoutMs);
				case 'profile':
					return await runProfile(interaction, memory, text);
				case 'forget':
					return await runForget(interaction, memory, text);
				case 'export':
					return await runExport(interaction, memory, text);
				case 'privacy':
					return await runPrivacy(interaction, memory, text, {
						hostLevel: await resolvedPrivacyLevel(interaction.user.id),
						timeoutMs: confirmationTimeoutMs
					});
				case 'wipe-channel':
					return await runWipeChannel(interaction, memory, text, moderatorPermission);
				case 'help':
					return await runHelp(interaction, text);
				default:
					return await answer(interaction, text.get('reply.unknownSubcommand'));
			}
		} catch (error) {
			// A member's malformed options are explained to them; they say nothing about memory.
			const malformed = malformedOptions(error, text);
			if (malformed) return void (await answer(interaction, malformed).catch(() => undefined));
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			const invalid = error instanceof Error && 'code' in error && (error.code === 'INVALID_INPUT' || error.code === 'PRIVACY_REFUSED');
			if (!invalid) this.#cooldowns.giveBack(subcommand, interaction.user.id);
			await answer(interaction, invalid ? (error as Error).message : text.get('reply.unavailable')).catch(() => undefined);
		}
	}

	public override async autocompleteRun(interaction: AutocompleteInteraction): Promise<void> {
		try {
			await completeForgetChoices(interaction, this.container.memory, new SessionText(interaction.locale));
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

/** The parts of the command whose name and description are localized. */
type Localizable =
	| 'status'
	| 'clear'
	| 'clear.scope'
	| 'profile'
	| 'forget'
	| 'forget.topic'
	| 'export'
	| 'privacy'
	| 'privacy.level'
	| 'privacy.crossServer'
	| 'help'
	| 'wipe'
	| 'wipe.channel';

/**
 * A subcommand's or option's name and description with their localizations. The name Discord sends back is always the
 * English one, which the command dispatches on; the member sees the localized one.
 */
function localized<Builder extends SharedNameAndDescription>(builder: Builder, part: Localizable): Builder {
	const name = `${part}.name` as SessionStringKey;
	const description = `${part}.description` as SessionStringKey;
	return builder
		.setName(SESSION_STRINGS[name])
		.setNameLocalizations(SessionText.localizations(name))
		.setDescription(new SessionText(null).get(description))
		.setDescriptionLocalizations(SessionText.localizations(description));
}

/** A choice, its name localized. */
function choice(key: SessionStringKey, value: string): APIApplicationCommandOptionChoice<string> {
	return { name: new SessionText(null).get(key), name_localizations: SessionText.localizations(key), value };
}
