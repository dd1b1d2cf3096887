import type { MessageContextMenuCommandInteraction } from 'discord.js';
import type { MemoryEngine } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import type { SessionStringKey } from '../../src/plugin/sessionStrings';
import { forgetChoicesChanged } from '../../src/plugin/forgetChoices';
import { levelName } from '../session/privacy';
import { answer } from '../session/reply';
import { messageRequest } from './target';

/** Remember this: the message's text as a note of the member's profile, if it is theirs or a persona's reply to them. */
export async function runRememberMessage(interaction: MessageContextMenuCommandInteraction, memory: MemoryEngine, text: SessionText): Promise<void> {
	const result = await memory.rememberMessage({ ...messageRequest(interaction), text: interaction.targetMessage.content });
	const answers: Record<typeof result.outcome, SessionStringKey> = {
		remembered: 'apps.remember.remembered',
		'not-minimal': 'apps.remember.notMinimal',
		'not-yours': 'apps.remember.notYours',
		'not-stored': 'apps.remember.notStored',
		empty: 'apps.remember.empty'
	};
	// The note is one more thing `/session forget` offers.
	if (result.outcome === 'remembered') forgetChoicesChanged(memory, interaction.user.id);
	const level = result.privacyLevel === undefined ? '' : levelName(result.privacyLevel, text);
	return answer(interaction, text.get(answers[result.outcome], { note: result.note ?? '', level }));
}
