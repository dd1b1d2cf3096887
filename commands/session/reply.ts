import {
	type ButtonInteraction,
	type ChatInputCommandInteraction,
	type InteractionEditReplyOptions,
	type InteractionReplyOptions,
	type MessageContextMenuCommandInteraction,
	MessageFlags
} from 'discord.js';
import type { SessionText } from '../../src/plugin/SessionText';

/** What `/session` and its buttons answer: a text, or a message with components or files. */
export type SessionAnswer = string | Omit<InteractionReplyOptions, 'flags'>;

/** The interactions `/session` answers: the command, the buttons on its answers, and the message commands. */
export type SessionInteraction = ChatInputCommandInteraction | ButtonInteraction | MessageContextMenuCommandInteraction;

/** Every `/session` answer is ephemeral: only the member who asked sees their memory. */
export function ephemeral(options: SessionAnswer): InteractionReplyOptions & { flags: MessageFlags.Ephemeral } {
	return { ...(typeof options === 'string' ? { content: options } : options), flags: MessageFlags.Ephemeral };
}

/**
 * Acknowledges a command at once with an ephemeral "thinking…" placeholder, which {@link answer} then fills in: Discord
 * gives an interaction 3 seconds for its first answer, and a store a few milliseconds away can take longer than that.
 */
export async function deferAnswer(interaction: ChatInputCommandInteraction | MessageContextMenuCommandInteraction): Promise<void> {
	if (!interaction.deferred && !interaction.replied) await interaction.deferReply({ flags: MessageFlags.Ephemeral });
}

/**
 * Acknowledges a button at once and leaves its message as it is until {@link update} changes it: for a button whose
 * work goes to the store.
 */
export async function deferUpdate(interaction: ButtonInteraction): Promise<void> {
	if (!interaction.deferred && !interaction.replied) await interaction.deferUpdate();
}

/**
 * Answers, ephemerally: fills in the deferred placeholder, replies when nothing was sent yet, or follows up once
 * answered. An answer after deferring (an error's too) lands in the same message.
 */
export async function answer(interaction: SessionInteraction, options: SessionAnswer): Promise<void> {
	if (interaction.deferred && !interaction.replied) await interaction.editReply(edit(options));
	else if (interaction.replied || interaction.deferred) await interaction.followUp(ephemeral(options));
	else await interaction.reply(ephemeral(options));
}

/** Changes the message a button sits on: at once, or after {@link deferUpdate}. */
export async function update(interaction: ButtonInteraction, options: SessionAnswer): Promise<void> {
	if (interaction.deferred || interaction.replied) await interaction.editReply(edit(options));
	else await interaction.update(typeof options === 'string' ? { content: options } : (options as InteractionEditReplyOptions));
}

/** An answer as an edit: the message keeps the flags it was sent with. */
function edit(options: SessionAnswer): InteractionEditReplyOptions {
	return typeof options === 'string' ? { content: options } : (options as InteractionEditReplyOptions);
}

/** Hours and minutes left, for TTLs. */
export function duration(ms: number, text: SessionText): string {
	if (ms <= 0) return text.get('duration.expired');
	const minutes = Math.round(ms / 60_000);
	if (minutes < 60) return text.get('duration.minutes', { minutes });
	const hours = Math.floor(minutes / 60);
	return minutes % 60 === 0 ? text.get('duration.hours', { hours }) : text.get('duration.hoursMinutes', { hours, minutes: minutes % 60 });
}
