import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { SessionText } from '../../src/plugin/SessionText';

/** What a confirmation button confirms: `/session clear scope:all`, or `/session privacy level:full` (which erases everything too). */
export type ConfirmKind = 'clear-all' | 'privacy-full';

const KINDS: readonly ConfirmKind[] = ['clear-all', 'privacy-full'];

/** A parsed confirmation button; its custom id is `memory:<kind>:<confirm|cancel>:<userId>:<expiresAt>`. */
export interface ConfirmButton {
	kind: ConfirmKind;
	action: 'confirm' | 'cancel';
	userId: string;
	expiresAt: number;
	/** `privacy-full` only: the cross-server choice made with it, when one was. */
	crossServer?: boolean;
}

export function confirmButtonId(button: ConfirmButton): string {
	const crossServer = button.crossServer === undefined ? '' : `:${button.crossServer ? 1 : 0}`;
	return `memory:${button.kind}:${button.action}:${button.userId}:${button.expiresAt}${crossServer}`;
}

export function parseConfirmButton(customId: string): ConfirmButton | null {
	const [memory, kind, action, userId, expiresAt, crossServer, ...rest] = customId.split(':');
	if (memory !== 'memory' || !KINDS.includes(kind as ConfirmKind) || (action !== 'confirm' && action !== 'cancel') || rest.length > 0) return null;
	if (!userId || !/^\d+$/.test(expiresAt ?? '') || (crossServer !== undefined && !/^[01]$/.test(crossServer))) return null;
	return {
		kind: kind as ConfirmKind,
		action,
		userId,
		expiresAt: Number(expiresAt),
		...(crossServer === undefined ? {} : { crossServer: crossServer === '1' })
	};
}

/** The two buttons under a question: the red one does it, the grey one cancels. */
export function confirmRow(
	button: Omit<ConfirmButton, 'action'>,
	text: SessionText,
	confirmLabel: 'clear.confirmButton' | 'privacy.confirmFullButton'
): ActionRowBuilder<ButtonBuilder> {
	return new ActionRowBuilder<ButtonBuilder>().addComponents(
		new ButtonBuilder()
			.setCustomId(confirmButtonId({ ...button, action: 'confirm' }))
			.setLabel(text.get(confirmLabel))
			.setStyle(ButtonStyle.Danger),
		new ButtonBuilder()
			.setCustomId(confirmButtonId({ ...button, action: 'cancel' }))
			.setLabel(text.get('confirm.cancelButton'))
			.setStyle(ButtonStyle.Secondary)
	);
}
