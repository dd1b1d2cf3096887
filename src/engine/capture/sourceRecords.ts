import type { Visibility } from '../privacy/visibility';
import type { ContextSourcesRecord, MemoryTurn } from '../schemas';
import type { CaptureParts } from './CaptureParts';
import type { PersonaReplies } from './turnMessages';

/**
 * What each of one persona's stored replies drew on, as its record keeps it: the context `buildContext` built for that
 * member, persona and channel, if it waited for this turn. A context built before the member's last clear or erasure is not
 * kept.
 */
export function sourceRecords(
	parts: CaptureParts,
	turn: MemoryTurn,
	persona: PersonaReplies,
	visibility: Visibility,
	now: number
): ContextSourcesRecord[] {
	const built = parts.sources.pending.take(
		{ userId: turn.userId, serverId: turn.serverId, channelId: turn.channelId, personaId: persona.personaId },
		now
	);
	if (!built || !visibility.storable(turn.userId, built.at)) return [];
	const { at, groups, omitted } = built;
	return persona.messages.map((reply) => ({ replyId: reply.id, serverId: turn.serverId, channelId: turn.channelId, at, groups, omitted }));
}
