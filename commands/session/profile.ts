import type { ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { answer } from './reply';

/** `/session profile`: the member's stored profile and topic notes. */
export async function runProfile(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const [profile, topics] = await Promise.all([memory.getProfile(interaction.user.id), memory.listTopics(interaction.user.id)]);
	if (!profile && topics.length === 0) {
		await answer(interaction, text.get('profile.nothing'));
		return;
	}
	const lines = [text.get('profile.heading')];
	for (const [key, value] of Object.entries(profile?.preferences ?? {})) lines.push(`• ${key}: ${value}`);
	for (const note of profile?.notes ?? []) lines.push(`• ${note}`);
	if (profile?.tags.length) lines.push(text.get('profile.tags', { tags: profile.tags.join(', ') }));
	if (topics.length > 0) lines.push('', text.get('profile.topicsHeading'), ...topics.map((topic) => `• ${topic.title} (\`${topic.slug}\`)`));
	await answer(interaction, truncate(lines.join('\n')));
}

function truncate(text: string): string {
	return text.length > 2000 ? `${text.slice(0, 1990)}\n…` : text;
}
