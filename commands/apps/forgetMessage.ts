import { type MessageContextMenuCommandInteraction, PermissionFlagsBits } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { answer } from '../session/reply';
import { messageRequest } from './target';

/**
 * Forget this message: memory forgets the message as a deletion on Discord (every copy, the persona's replies to it, never
 * stored again) while it stays on Discord, if it is the member's own, a persona's reply to them, or they manage messages there.
 */
export async function runForgetMessage(interaction: MessageContextMenuCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const result = await memory.forgetMessage({
		...messageRequest(interaction),
		// Discord sends the member's permissions in this channel, its overwrites applied.
		moderator: interaction.memberPermissions?.has(PermissionFlagsBits.ManageMessages) ?? false
	});
	if (result.outcome === 'forgotten')
		return answer(interaction, text.get(result.writtenBy === 'persona' ? 'apps.forget.forgottenReply' : 'apps.forget.forgotten'));
	return answer(interaction, text.get(result.outcome === 'not-yours' ? 'apps.forget.notYours' : 'apps.forget.notStored'));
}
