import type { AutocompleteInteraction, ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { forgetChoices, forgetChoicesChanged, noteChoiceValue } from '../../src/plugin/forgetChoices';
import { answer } from './reply';

/** Characters of a note a choice shows: Discord's 100, less the label. */
const NOTE_CHOICE_CHARS = 90;

/** `/session forget <topic or note>`: deletes one of the member's topic notes, or a note of their profile. */
export async function runForget(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const topic = interaction.options.getString('topic', true).trim();
	if (topic.length === 0 || topic.length > 100) {
		await answer(interaction, text.get('forget.nameOne'));
		return;
	}
	if (topic.startsWith('note:')) return forgetNote(interaction, memory, text, topic);
	const forgotten = await memory.forgetTopic(interaction.user.id, topic);
	forgetChoicesChanged(memory, interaction.user.id);
	await answer(interaction, text.get(forgotten ? 'forget.done' : 'forget.unknown', { topic }));
}

/** A profile note, named by the value autocomplete offered for it (see forgetChoices.ts). */
async function forgetNote(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText, value: string): Promise<void> {
	const userId = interaction.user.id;
	const note = (await memory.getProfile(userId))?.notes.find((candidate) => noteChoiceValue(candidate) === value);
	if (note !== undefined) await memory.updateProfile(userId, { removeNotes: [note] });
	forgetChoicesChanged(memory, userId);
	await answer(interaction, note === undefined ? text.get('forget.noteUnknown') : text.get('forget.noteDone', { note }));
}

/** Autocomplete of `/session forget`: only the member's own topics and profile notes, from their list kept between keystrokes. */
export async function completeForgetChoices(interaction: AutocompleteInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const typed = interaction.options.getFocused().toLowerCase();
	const { topics, notes } = await forgetChoices(memory, interaction.user.id);
	const topicChoices = topics
		.filter((topic) => topic.slug.includes(typed) || topic.title.toLowerCase().includes(typed))
		.map((topic) => ({ name: topic.title.slice(0, 100), value: topic.slug }));
	const noteChoices = notes
		.filter((note) => note.toLowerCase().includes(typed))
		.map((note) => ({ name: text.get('forget.noteChoice', { note: cut(note) }).slice(0, 100), value: noteChoiceValue(note) }));
	await interaction.respond([...topicChoices, ...noteChoices].slice(0, 25));
}

function cut(note: string): string {
	const characters = [...note];
	return characters.length > NOTE_CHOICE_CHARS ? `${characters.slice(0, NOTE_CHOICE_CHARS - 1).join('')}…` : note;
}
