import { Command } from '@sapphire/framework';
import { ApplicationCommandType, type ContextMenuCommandInteraction } from 'discord.js';
import { pluginOptions } from '../src/plugin/pluginOptions';
import { reportMemoryError } from '../src/plugin/report';
import { SessionText } from '../src/plugin/SessionText';
import { SESSION_STRINGS, type SessionStringKey } from '../src/plugin/sessionStrings';
import { runContextSources } from './apps/contextSources';
import { runForgetMessage } from './apps/forgetMessage';
import { runRememberMessage } from './apps/rememberMessage';
import { answer, deferAnswer } from './session/reply';

/** The message commands' names, as the strings table keys them: Discord sends back the English name, which routes. */
const NAMES = ['apps.forget.name', 'apps.remember.name', 'apps.sources.name'] as const satisfies readonly SessionStringKey[];

/**
 * The message commands that come with `/session` (Discord's Apps menu on a message): Forget this message, Remember this,
 * and What did you remember?.
 * Named and translated from the same strings as `/session`; every answer is ephemeral.
 */
export class PluginCommand extends Command {
	public constructor(context: Command.LoaderContext, options: Command.Options) {
		super(context, { ...options, description: 'Memory: forget or keep one message, or see what a reply drew on' });
	}

	public override registerApplicationCommands(registry: Command.Registry): void {
		const guildIds = [...pluginOptions(this.container.client).commandGuildIds];
		for (const key of NAMES)
			registry.registerContextMenuCommand(
				(builder) =>
					builder
						.setName(SESSION_STRINGS[key])
						.setNameLocalizations(SessionText.localizations(key))
						.setType(ApplicationCommandType.Message),
				guildIds.length > 0 ? { guildIds } : {}
			);
	}

	public override async contextMenuRun(interaction: ContextMenuCommandInteraction): Promise<void> {
		if (!interaction.isMessageContextMenuCommand()) return;
		const { memory } = this.container;
		const text = new SessionText(interaction.locale);
		try {
			// The store may be far: acknowledge within Discord's 3 seconds, then fill the answer in.
			await deferAnswer(interaction);
			if (interaction.commandName === SESSION_STRINGS['apps.forget.name']) return await runForgetMessage(interaction, memory, text);
			if (interaction.commandName === SESSION_STRINGS['apps.remember.name']) return await runRememberMessage(interaction, memory, text);
			if (interaction.commandName === SESSION_STRINGS['apps.sources.name']) return await runContextSources(interaction, memory, text);
			return await answer(interaction, text.get('reply.unknownSubcommand'));
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'command', userId: interaction.user.id, channelId: interaction.channelId });
			const invalid = error instanceof Error && 'code' in error && (error.code === 'INVALID_INPUT' || error.code === 'PRIVACY_REFUSED');
			await answer(interaction, invalid ? (error as Error).message : text.get('reply.unavailable')).catch(() => undefined);
		}
	}
}
