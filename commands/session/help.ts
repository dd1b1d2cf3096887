import type { ChatInputCommandInteraction } from 'discord.js';
import type { SessionText } from '../../src/plugin/SessionText';
import { answer } from './reply';

/** `/session help`: the subcommands, and the message commands by the names the member sees. */
export async function runHelp(interaction: ChatInputCommandInteraction, text: SessionText): Promise<void> {
	await answer(
		interaction,
		text.get('help.text', {
			forgetMessage: text.get('apps.forget.name'),
			rememberMessage: text.get('apps.remember.name'),
			contextSources: text.get('apps.sources.name')
		})
	);
}
