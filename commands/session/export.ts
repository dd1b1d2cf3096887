import { AttachmentBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import { DEFAULT_ATTACHMENT_SIZE_LIMIT, exportFiles, ExportTooLargeError, inMessages } from '../../src/plugin/exportFiles';
import type { SessionText } from '../../src/plugin/SessionText';
import { answer } from './reply';

/**
 * `/session export`: everything stored about the member, as gzip-compressed JSON only they can see, never over the
 * interaction's attachment limit: one file, or parts that each fit, in as many messages as they need.
 */
export async function runExport(interaction: ChatInputCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const limit = interaction.attachmentSizeLimit ?? DEFAULT_ATTACHMENT_SIZE_LIMIT;
	const files = await exportFiles(await memory.exportUser(interaction.user.id), limit).catch((error: unknown) => {
		if (error instanceof ExportTooLargeError) return null;
		throw error;
	});
	if (!files) return answer(interaction, text.get('export.tooLarge'));
	const messages = inMessages(files, limit).map((message) => message.map((file) => new AttachmentBuilder(file.data, { name: file.name })));
	const [first, ...more] = messages;
	const content = files.length === 1 ? text.get('export.done') : text.get('export.parts', { parts: files.length, messages: messages.length });
	await answer(interaction, { content, files: first! });
	for (const attachments of more) await answer(interaction, { files: attachments });
}
