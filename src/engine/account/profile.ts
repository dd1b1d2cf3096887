import { parseInput, type ProfilePatch, ProfilePatchSchema, type UserProfile } from '../schemas';
import { Records } from '../records/Records';
import { collapsedText } from '../format/cleanText';
import { allowed, assertAllowed, invalid, type LongTermDependencies, LongTermLimits } from './longTerm';

/** The user's profile; null when there is none (always for PARTIAL and FULL users). */
export async function getProfile(deps: LongTermDependencies, userId: string): Promise<UserProfile | null> {
	if (!(await allowed(deps.settings, userId))) return null;
	return (await deps.store.get<UserProfile>(Records.profile(userId))) ?? null;
}

/**
 * Merges `patch` into the profile: preferences by name (`null` removes one), notes removed by text, then notes and tags
 * added once each. Rejects with `INVALID_INPUT` naming the limit a change breaks, `PRIVACY_REFUSED` unless MINIMAL.
 */
export async function updateProfile(deps: LongTermDependencies, userId: string, patch: ProfilePatch, now: number): Promise<UserProfile> {
	const parsed = parseInput(ProfilePatchSchema, patch, 'profile patch');
	// A patch over a limit on its own is refused before any of it is cleaned.
	countWithin('preferences', Object.keys(parsed.preferences ?? {}).length, LongTermLimits.preferences);
	countWithin('notes', parsed.notes?.length ?? 0, LongTermLimits.notes);
	countWithin('tags', parsed.tags?.length ?? 0, LongTermLimits.tags);
	const preferences = Object.entries(parsed.preferences ?? {}).map(([name, value]) => {
		const cleanName = collapsedText(name);
		if (cleanName.length === 0 || cleanName.length > LongTermLimits.preferenceNameChars)
			throw invalid(
				`A preference name must be 1 to ${LongTermLimits.preferenceNameChars} characters; got ${JSON.stringify(name.slice(0, 80))}.`
			);
		if (value === null) return [cleanName, null] as const;
		const cleanValue = collapsedText(value);
		if (cleanValue.length === 0 || cleanValue.length > LongTermLimits.preferenceChars)
			throw invalid(
				`A preference is at most ${LongTermLimits.preferenceChars} characters (and not empty); "${cleanName}" has ` +
					`${cleanValue.length}. Use null to remove it.`
			);
		return [cleanName, cleanValue] as const;
	});
	const notes = (parsed.notes ?? []).map((note) => {
		const clean = collapsedText(note);
		if (clean.length === 0 || clean.length > LongTermLimits.noteChars)
			throw invalid(`A note is at most ${LongTermLimits.noteChars} characters (and not empty); got one of ${clean.length}.`);
		return clean;
	});
	const tags = (parsed.tags ?? []).map((tag) => {
		const clean = collapsedText(tag).toLowerCase();
		if (clean.length === 0 || clean.length > LongTermLimits.tagChars)
			throw invalid(`A tag is at most ${LongTermLimits.tagChars} characters (and not empty); got ${JSON.stringify(clean.slice(0, 80))}.`);
		return clean;
	});

	const key = Records.profile(userId);
	// The privacy check runs under the key's lock, so a switch to PARTIAL (which deletes under it too) always wins.
	return deps.store.locked([key], async () => {
		await assertAllowed(deps.settings, userId);
		const current = await deps.store.get<UserProfile>(key);
		const next: UserProfile = {
			preferences: { ...current?.preferences },
			notes: [...(current?.notes ?? [])],
			tags: [...(current?.tags ?? [])],
			updatedAt: now
		};
		for (const [name, value] of preferences) {
			if (value === null) delete next.preferences[name];
			else next.preferences[name] = value;
		}
		const removed = new Set((parsed.removeNotes ?? []).map(collapsedText));
		next.notes = next.notes.filter((note) => !removed.has(note));
		for (const note of notes) if (!next.notes.includes(note)) next.notes.push(note);
		for (const tag of tags) if (!next.tags.includes(tag)) next.tags.push(tag);
		const count = Object.keys(next.preferences).length;
		countWithin('preferences', count, LongTermLimits.preferences);
		countWithin('notes', next.notes.length, LongTermLimits.notes);
		countWithin('tags', next.tags.length, LongTermLimits.tags);
		if (count === 0 && next.notes.length === 0 && next.tags.length === 0) await deps.store.delete([key]);
		else await deps.store.set(key, next);
		return next;
	});
}

function countWithin(what: 'preferences' | 'notes' | 'tags', count: number, limit: number): void {
	if (count > limit) throw invalid(`A profile holds at most ${limit} ${what}; this change would make ${count}. Remove some first.`);
}
