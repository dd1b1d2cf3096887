import { container } from '@sapphire/pieces';
import type { PrivacyLevel } from '../engine/types';

/**
 * The host's privacy level for a user, when it supplied a resolver. The level is also stored, so
 * the engine hides a FULL member's messages even in turns someone else triggers.
 */
export async function resolvedPrivacyLevel(userId: string): Promise<PrivacyLevel | undefined> {
	const resolver = container.client.options.memory?.resolvePrivacyLevel;
	if (!resolver) return undefined;
	const level = await resolver(userId);
	if (level === undefined) return undefined;
	const stored = await container.memory.getUserSettings(userId);
	if (stored.privacyLevel !== level) await container.memory.setUserSettings(userId, { privacyLevel: level });
	return level;
}
