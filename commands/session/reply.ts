import { type ChatInputCommandInteraction, type InteractionReplyOptions, MessageFlags } from 'discord.js';
import type { SessionText } from '../../src/plugin/SessionText';

/** Every `/session` answer is ephemeral: only the member who asked sees their memory. */
export function ephemeral(options: string | Omit<InteractionReplyOptions, 'flags'>): InteractionReplyOptions & { flags: MessageFlags.Ephemeral } {
	return { ...(typeof options === 'string' ? { content: options } : options), flags: MessageFlags.Ephemeral };
}

/** Replies, or follows up when the interaction was already answered. */
export async function answer(interaction: ChatInputCommandInteraction, options: string | Omit<InteractionReplyOptions, 'flags'>): Promise<void> {
	const message = ephemeral(options);
	if (interaction.replied || interaction.deferred) await interaction.followUp(message);
	else await interaction.reply(message);
}

/** Hours and minutes left, for TTLs. */
export function duration(ms: number, text: SessionText): string {
	if (ms <= 0) return text.get('duration.expired');
	const minutes = Math.round(ms / 60_000);
	if (minutes < 60) return text.get('duration.minutes', { minutes });
	const hours = Math.floor(minutes / 60);
	return minutes % 60 === 0 ? text.get('duration.hours', { hours }) : text.get('duration.hoursMinutes', { hours, minutes: minutes % 60 });
}
