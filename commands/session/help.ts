import type { ChatInputCommandInteraction } from 'discord.js';
import type { SessionText } from '../../src/plugin/SessionText';
import { answer } from './reply';

/** `/session help`. */
export async function runHelp(interaction: ChatInputCommandInteraction, text: SessionText): Promise<void> {
	await answer(interaction, text.get('help.text'));
}
