import type { ChatInputCommandInteraction } from 'discord.js';
import { answer } from './reply';

export const HELP = [
	'**/session**: your memory with this bot. Only you see these answers.',
	'`/session status`: what is remembered about you and for how long',
	'`/session clear`: forget your recent conversations (it says what it keeps)',
	'`/session clear scope:all`: forget everything about you (asks to confirm)',
	'`/session profile`: your stored profile and topic notes',
	'`/session forget topic:<name>`: delete one topic note',
	'`/session export`: download all your data as a JSON file',
	'`/session privacy level:<minimal|partial|full> cross_server:<true|false>`: choose what is remembered',
	'  (`full` forgets everything about you first, and asks to confirm)',
	'`/session wipe-channel`: moderators only, forget a channel’s memory'
].join('\n');

/** `/session help`. */
export async function runHelp(interaction: ChatInputCommandInteraction): Promise<void> {
	await answer(interaction, HELP);
}
