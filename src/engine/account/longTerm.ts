import { z } from 'zod';
import { MemoryError } from '../errors';
import { Keys } from '../store/keys';
import type { SettingsRepository } from '../privacy/SettingsRepository';
import type { MemoryStore } from '../store/MemoryStore';
import { cleanText } from '../capture/cleanText';
import { PrivacyLevel, type ProfilePatch, type TopicListing, type TopicNote, type UserProfile } from '../schemas/types';
import { parseInput } from '../schemas/validation';

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

/** `ltm:topics:<userId>` as stored: slug → note. */
export type StoredTopics = Record<string, Omit<TopicNote, 'slug'>>;

/** What long-term memory needs from the engine. */
export interface LongTermDependencies {
	store: MemoryStore;
	settings: SettingsRepository;
}

// Loose shapes only: each text is cleaned, then measured against the limits with a message saying which.
const ProfilePatchSchema = z.strictObject({
	preferences: z.record(z.string(), z.string().nullable()).optional(),
	notes: z.array(z.string()).optional(),
	tags: z.array(z.string()).optional()
});

/** One line of text: cleaned and with its white space collapsed, so no entry can break a block's layout. */
export function collapsedText(text: string): string {
	return cleanText(text).replace(/\s+/g, ' ').trim();
}

/**
 * The key of a topic: its title lower-cased, accents dropped, every run of other characters made
 * one "-", at most 64 characters. `"Trip to Porto (June)"` → `"trip-to-porto-june"`.
 */
export function topicSlug(title: string): string {
	return title
		.normalize('NFKD')
		.replace(/\p{M}+/gu, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-+/, '')
		.slice(0, LongTermLimits.slugChars)
		.replace(/-+$/, '');
}

function invalid(message: string): MemoryError {
	return new MemoryError('INVALID_INPUT', message);
}

/** Rejects unless the user's privacy level allows long-term memory (MINIMAL). */
async function assertAllowed(settings: SettingsRepository, userId: string): Promise<void> {
	const { privacyLevel } = await settings.user(userId);
	if (privacyLevel === PrivacyLevel.MINIMAL) return;
	throw new MemoryError(
		'PRIVACY_REFUSED',
		`Long-term memory is off for this user: privacy level ${PrivacyLevel[privacyLevel]} keeps no profile or topic notes. Only MINIMAL allows them.`
	);
}

async function allowed(settings: SettingsRepository, userId: string): Promise<boolean> {
	return (await settings.user(userId)).privacyLevel === PrivacyLevel.MINIMAL;
}

/** The user's profile; null when there is none (always for PARTIAL and FULL users). */
export async function getProfile(deps: LongTermDependencies, userId: string): Promise<UserProfile | null> {
	if (!(await allowed(deps.settings, userId))) return null;
	return (await deps.store.get<UserProfile>(Keys.profile(userId))) ?? null;
}

/**
 * Merges `patch` into the profile: preferences by name (`null` removes one), notes and tags added
 * once each. Rejects with `INVALID_INPUT` naming the limit a change breaks, `PRIVACY_REFUSED` unless MINIMAL.
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
				`A preference is at most ${LongTermLimits.preferenceChars} characters (and not empty); "${cleanName}" has ${cleanValue.length}. Use null to remove it.`
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

	const key = Keys.profile(userId);
	// The privacy check runs under the key's lock, so a switch to PARTIAL (which deletes under it too) always wins.
	return deps.store.lock.run(key, async () => {
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

/**
 * Saves (or replaces) the topic note keyed by the title's slug. Rejects with `INVALID_INPUT` for an
 * empty or over-long title or note, or a 101st topic; `PRIVACY_REFUSED` unless MINIMAL.
 */
export async function saveTopic(deps: LongTermDependencies, userId: string, title: unknown, note: unknown, now: number): Promise<TopicNote> {
	if (typeof title !== 'string' || typeof note !== 'string') throw invalid('A topic needs a title and a note, both text.');
	const cleanTitle = collapsedText(title);
	const slug = topicSlug(cleanTitle);
	if (cleanTitle.length > LongTermLimits.topicTitleChars)
		throw invalid(`A topic title is at most ${LongTermLimits.topicTitleChars} characters; got ${cleanTitle.length}.`);
	if (slug.length === 0) throw invalid(`A topic title needs at least one letter or digit (a–z, 0–9); got ${JSON.stringify(title.slice(0, 80))}.`);
	const cleanNote = cleanText(note);
	if (cleanNote.length === 0 || cleanNote.length > LongTermLimits.topicNoteChars)
		throw invalid(`A topic note is at most ${LongTermLimits.topicNoteChars} characters (and not empty); got ${cleanNote.length}.`);

	const key = Keys.topics(userId);
	return deps.store.lock.run(key, async () => {
		await assertAllowed(deps.settings, userId);
		const topics = { ...(await deps.store.get<StoredTopics>(key)) };
		if (!(slug in topics) && Object.keys(topics).length >= LongTermLimits.topics)
			throw invalid(`A user keeps at most ${LongTermLimits.topics} topics; forget one first.`);
		topics[slug] = { title: cleanTitle, note: cleanNote, updatedAt: now };
		await deps.store.set(key, topics);
		return { slug, ...topics[slug]! };
	});
}

/** The user's topics, newest first; empty for PARTIAL and FULL users. */
export async function listTopics(deps: LongTermDependencies, userId: string): Promise<TopicListing[]> {
	if (!(await allowed(deps.settings, userId))) return [];
	const topics = (await deps.store.get<StoredTopics>(Keys.topics(userId))) ?? {};
	return Object.entries(topics)
		.map(([slug, { title, updatedAt }]) => ({ slug, title, updatedAt }))
		.sort((a, b) => b.updatedAt - a.updatedAt || (a.slug < b.slug ? -1 : 1));
}

/** One topic by slug (or by title, which is slugged); null when there is none. */
export async function getTopic(deps: LongTermDependencies, userId: string, slugOrTitle: unknown): Promise<TopicNote | null> {
	const slug = slugOf(slugOrTitle);
	if (!slug || !(await allowed(deps.settings, userId))) return null;
	const topic = (await deps.store.get<StoredTopics>(Keys.topics(userId)))?.[slug];
	return topic ? { slug, ...topic } : null;
}

/** Deletes one topic by slug (or title); false when there was none. Allowed at every privacy level. */
export async function forgetTopic(deps: LongTermDependencies, userId: string, slugOrTitle: unknown): Promise<boolean> {
	const slug = slugOf(slugOrTitle);
	if (!slug) return false;
	let found = false;
	await deps.store.update<StoredTopics>(Keys.topics(userId), (current) => {
		if (!current || !(slug in current)) return null;
		found = true;
		const { [slug]: _forgotten, ...rest } = current;
		return Object.keys(rest).length === 0 ? 'delete' : { value: rest };
	});
	return found;
}

/** Deletes the user's profile and topics (erasure, or a switch to PARTIAL or FULL). */
export async function eraseLongTerm(store: MemoryStore, userId: string): Promise<{ profileDeleted: boolean; topicsDeleted: number }> {
	const keys = [Keys.profile(userId), Keys.topics(userId)];
	return store.lock.runAll(keys, async () => {
		const [profile, topics] = (await store.getMany<unknown>(keys)) as [UserProfile | undefined, StoredTopics | undefined];
		if (profile === undefined && topics === undefined) return { profileDeleted: false, topicsDeleted: 0 };
		await store.delete(keys);
		return { profileDeleted: profile !== undefined, topicsDeleted: Object.keys(topics ?? {}).length };
	});
}

function countWithin(what: 'preferences' | 'notes' | 'tags', count: number, limit: number): void {
	if (count > limit) throw invalid(`A profile holds at most ${limit} ${what}; this change would make ${count}. Remove some first.`);
}

function slugOf(slugOrTitle: unknown): string {
	if (typeof slugOrTitle !== 'string' || slugOrTitle.length > 200) throw invalid('A topic is named by its slug or title (at most 200 characters).');
	return topicSlug(slugOrTitle);
}
