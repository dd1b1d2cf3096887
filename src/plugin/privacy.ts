import { container } from '@sapphire/framework';
import type { MemoryTurn, PrivacyLevel } from '../engine';
import { pluginOptions } from './pluginOptions';
import { forgetChoicesChanged } from './forgetChoices';

/**
 * The host's privacy level for a user, when it supplied a resolver. The level is also stored, so
 * the engine hides a FULL member's messages even in turns someone else triggers.
 */
export async function resolvedPrivacyLevel(userId: string): Promise<PrivacyLevel | undefined> {
	const resolver = pluginOptions().resolvePrivacyLevel;
	if (!resolver) return undefined;
	const level = await resolver(userId);
	if (level === undefined) return undefined;
	const stored = await container.memory.getUserSettings(userId);
	if (stored.privacyLevel === level) return level;
	await container.memory.setUserSettings(userId, { privacyLevel: level });
	forgetChoicesChanged(container.memory, userId);
	return level;
}

/**
 * The privacy level to record `turn` with. With a host resolver, the levels of every member whose
 * words are in the history are synced first, so that the engine leaves out a member the host marks
 * FULL even in a turn someone else triggered, before that member ever triggered one.
 */
export async function resolvedTurnPrivacyLevel(turn: MemoryTurn): Promise<PrivacyLevel | undefined> {
	if (!pluginOptions().resolvePrivacyLevel) return turn.privacyLevel;
	const others = new Set(
		turn.history.flatMap((message) => (message.role === 'user' && message.authorId && message.authorId !== turn.userId ? [message.authorId] : []))
	);
	const [level] = await Promise.all([resolvedPrivacyLevel(turn.userId), ...[...others].map(resolvedPrivacyLevel)]);
	return turn.privacyLevel ?? level;
}
