import { container } from '@sapphire/framework';
import { reportMemoryError } from './report';

/**
 * Tells the engine a member left a server, when `MEMORY_FORGET_MEMBERS_WHO_LEAVE` is on; a failure is reported as
 * `memoryError`, never thrown.
 */
export async function forwardMemberLeft(serverId: string, userId: string): Promise<void> {
	if (!container.memory?.config.forgetMembersWhoLeave) return;
	try {
		await container.memory.memberLeft(serverId, userId);
	} catch (error) {
		reportMemoryError(container.client, error, { phase: 'server-change', serverId, userId });
	}
}

/**
 * Tells the engine the bot left a server (`removed`) or is in it again (`rejoined`); a failure is reported as
 * `memoryError`, never thrown.
 */
export async function forwardServerChange(serverId: string, change: 'removed' | 'rejoined'): Promise<void> {
	try {
		if (change === 'removed') await container.memory.serverRemoved(serverId);
		else await container.memory.serverRejoined(serverId);
	} catch (error) {
		reportMemoryError(container.client, error, { phase: 'server-change', serverId });
	}
}
