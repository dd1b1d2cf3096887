import type { ChatInputCommandInteraction } from 'discord.js';
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
	if (profile?.notes.length) lines.push(text.get('profile.notesHeading'));
	for (const note of profile?.notes ?? []) lines.push(`• ${note}`);
	if (profile?.tags.length) lines.push(text.get('profile.tags', { tags: profile.tags.join(', ') }));
	if (topics.length > 0) lines.push('', text.get('profile.topicsHeading'), ...topics.map((topic) => `• ${topic.title} (\`${topic.slug}\`)`));
	return lines.join('\n');
}
