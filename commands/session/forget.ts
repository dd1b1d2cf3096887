import type { AutocompleteInteraction, ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { topicChoices, topicsChanged } from '../../src/plugin/topicChoices';
import { answer } from './reply';

/** `/session forget <topic>`: deletes one of the member's topic notes. */
export async function runForget(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const topic = interaction.options.getString('topic', true).trim();
	if (topic.length === 0 || topic.length > 100) {
		await answer(interaction, text.get('forget.nameOne'));
		return;
	}
	const forgotten = await memory.forgetTopic(interaction.user.id, topic);
	topicsChanged(memory, interaction.user.id);
	await answer(interaction, text.get(forgotten ? 'forget.done' : 'forget.unknown', { topic }));
}

/** Autocomplete of `/session forget`: only the member's own topics, from their list kept between keystrokes. */
export async function completeTopics(interaction: AutocompleteInteraction, memory: MemoryEngine): Promise<void> {
	const typed = interaction.options.getFocused().toLowerCase();
	const topics = await topicChoices(memory, interaction.user.id);
	await interaction.respond(
		topics
			.filter((topic) => topic.slug.includes(typed) || topic.title.toLowerCase().includes(typed))
			.slice(0, 25)
			.map((topic) => ({ name: topic.title.slice(0, 100), value: topic.slug }))
	);
}
