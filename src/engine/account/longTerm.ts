import { MemoryError } from '../errors';
import type { SettingsRepository } from '../records/SettingsRepository';
import { PrivacyLevel, type StoredTopics, type UserProfile } from '../schemas';
import { Records } from '../records/Records';
import type { RecordStore } from '../records/RecordStore';

/** How much long-term memory one user may keep. */
export const LongTermLimits = {
	preferences: 50,
	preferenceNameChars: 64,
	preferenceChars: 200,
	notes: 50,
	noteChars: 500,
	tags: 30,
	tagChars: 50,
	topics: 100,
	topicTitleChars: 100,
	topicNoteChars: 2000,
	slugChars: 64
} as const;

/** What long-term memory needs from the engine. */
export interface LongTermDependencies {
	store: RecordStore;
	settings: SettingsRepository;
}

export function invalid(message: string): MemoryError {
	return new MemoryError('INVALID_INPUT', message);
}

/** Rejects unless the user's privacy level allows long-term memory (MINIMAL). */
export async function assertAllowed(settings: SettingsRepository, userId: string): Promise<void> {
	const { privacyLevel } = await settings.user(userId);
	if (privacyLevel === PrivacyLevel.MINIMAL) return;
	throw new MemoryError(
		'PRIVACY_REFUSED',
		`Long-term memory is off for this user: privacy level ${PrivacyLevel[privacyLevel]} keeps no profile or topic notes. Only MINIMAL ` +
			`allows them.`
	);
}

export async function allowed(settings: SettingsRepository, userId: string): Promise<boolean> {
	return (await settings.user(userId)).privacyLevel === PrivacyLevel.MINIMAL;
}

/** Deletes the user's profile and topics (erasure, or a switch to PARTIAL or FULL). */
export async function eraseLongTerm(store: RecordStore, userId: string): Promise<{ profileDeleted: boolean; topicsDeleted: number }> {
	const keys = [Records.profile(userId), Records.topics(userId)];
	return store.locked(keys, async () => {
		const read = await store.getManyChecked<unknown>(keys);
		const [profile, topics] = read.map(({ value }) => value) as [UserProfile | undefined, StoredTopics | undefined];
		// A row that cannot be read goes too: it may hold anything of theirs.
		if (profile === undefined && topics === undefined && !read.some(({ damaged }) => damaged)) return { profileDeleted: false, topicsDeleted: 0 };
		await store.delete(keys);
		return { profileDeleted: profile !== undefined, topicsDeleted: Object.keys(topics ?? {}).length };
	});
}
