import type { ContextRequest, MemoryTurn, TurnMessage } from '../../src';

let sequence = 1_000_000_000_000_000n;

/** A fresh snowflake-like id, increasing. */
export function snowflake(): string {
	sequence += 1n;
	return sequence.toString();
}

export const MAYA = { id: '482910573615284736', name: 'Maya' };
export const THEO = { id: '739104826351907842', name: 'Theo' };
export const NOVA = { id: '611111111111111111', name: 'Nova' };
export const GUILD = '800000000000000001';
export const OTHER_GUILD = '800000000000000002';
export const CHANNEL = '810000000000000001';
export const OTHER_CHANNEL = '810000000000000002';
export const THIRD_CHANNEL = '810000000000000003';
export const DM_CHANNEL = '820000000000000001';

/** A user message of `who`. */
export function said(who: { id: string; name: string }, text: string, timestamp?: number, messageId = snowflake()): TurnMessage {
	return { role: 'user', authorId: who.id, authorName: who.name, text, messageId, timestamp };
}

/** A turn where `who` says `text` in a guild channel (or a DM when `serverId` is null) and persona Sol answers. */
export function turn(
	overrides: Partial<MemoryTurn> & { text?: string; reply?: string; who?: { id: string; name: string }; personaId?: string | null } = {}
): MemoryTurn {
	const who = overrides.who ?? MAYA;
	const { text = 'hello there', reply = 'Hi! How can I help?', personaId = 'sol', ...rest } = overrides;
	return {
		userId: who.id,
		userName: who.name,
		serverId: GUILD,
		channelId: CHANNEL,
		history: [said(who, text, overrides.timestamp)],
		responses: [{ text: reply, personaId, personaName: 'Sol', messageId: snowflake() }],
		...rest
	};
}

/** A context request of `who` in the guild channel, persona Sol. */
export function ask(overrides: Partial<ContextRequest> = {}): ContextRequest {
	return { userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol', query: '', ...overrides };
}
