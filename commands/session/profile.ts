import type { AutocompleteInteraction, ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { pagedAnswer } from './pages';
import { answer } from './reply';

/** `/session profile`: the member's stored profile and topic notes, whole, in pages when they do not fit in one message. */
export async function runProfile(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	await answer(
		interaction,
		pagedAnswer(await profileText(interaction.user.id, memory, text), { view: 'profile', userId: interaction.user.id }, text)
	);
}

/** The text of `/session profile`, whole: every preference, note and tag, and every topic by title and slug. */
export async function profileText(userId: string, memory: MemoryEngine, text: SessionText): Promise<string> {
	const [profile, topics] = await Promise.all([memory.getProfile(userId), memory.listTopics(userId)]);
	if (!profile && topics.length === 0) return text.get('profile.nothing');
	const lines = [text.get('profile.heading')];
	for (const [key, value] of Object.entries(profile?.preferences ?? {})) lines.push(`• ${key}: ${value}`);
	for (const note of profile?.notes ?? []) lines.push(`• ${note}`);
	if (profile?.tags.length) lines.push(text.get('profile.tags', { tags: profile.tags.join(', ') }));
	if (topics.length > 0) lines.push('', text.get('profile.topicsHeading'), ...topics.map((topic) => `• ${topic.title} (\`${topic.slug}\`)`));
	return lines.join('\n');
}

/** `/session forget <topic>`: deletes one of the member's topic notes. */
export async function runForget(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const topic = interaction.options.getString('topic', true).trim();
	if (topic.length === 0 || topic.length > 100) {
		await answer(interaction, text.get('forget.nameOne'));
		return;
	}
	const forgotten = await memory.forgetTopic(interaction.user.id, topic);
	await answer(interaction, text.get(forgotten ? 'forget.done' : 'forget.unknown', { topic }));
}

/** Autocomplete of `/session forget`: only the member's own topics. */
export async function completeTopics(interaction: AutocompleteInteraction, memory: MemoryEngine): Promise<void> {
	const typed = interaction.options.getFocused().toLowerCase();
	const topics = await memory.listTopics(interaction.user.id);
	await interaction.respond(
		topics
			.filter((topic) => topic.slug.includes(typed) || topic.title.toLowerCase().includes(typed))
			.slice(0, 25)
			.map((topic) => ({ name: topic.title.slice(0, 100), value: topic.slug }))
	);
}
