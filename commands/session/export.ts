import { AttachmentBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import { answer } from './reply';

/** `/session export`: everything stored about the member, as a JSON file only they can see. */
export async function runExport(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const data = await memory.exportUser(interaction.user.id);
	const file = new AttachmentBuilder(Buffer.from(JSON.stringify(data, null, 2), 'utf8'), { name: `memory-export-${interaction.user.id}.json` });
	await answer(interaction, { content: text.get('export.done'), files: [file] });
}
