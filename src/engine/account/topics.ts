import type { StoredTopics, TopicListing, TopicNote } from '../schemas';
import { Records } from '../records/Records';
import { cleanText, collapsedText } from '../format/cleanText';
import { allowed, assertAllowed, invalid, type LongTermDependencies, LongTermLimits } from './longTerm';

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

	const key = Records.topics(userId);
	return deps.store.locked([key], async () => {
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
	const topics = (await deps.store.get<StoredTopics>(Records.topics(userId))) ?? {};
	return Object.entries(topics)
		.map(([slug, { title, updatedAt }]) => ({ slug, title, updatedAt }))
		.sort((a, b) => b.updatedAt - a.updatedAt || (a.slug < b.slug ? -1 : 1));
}

/** One topic by slug (or by title, which is slugged); null when there is none. */
export async function getTopic(deps: LongTermDependencies, userId: string, slugOrTitle: unknown): Promise<TopicNote | null> {
	const slug = slugOf(slugOrTitle);
	if (!slug || !(await allowed(deps.settings, userId))) return null;
	const topic = (await deps.store.get<StoredTopics>(Records.topics(userId)))?.[slug];
	return topic ? { slug, ...topic } : null;
}

/** Deletes one topic by slug (or title); false when there was none. Allowed at every privacy level. */
export async function forgetTopic(deps: LongTermDependencies, userId: string, slugOrTitle: unknown): Promise<boolean> {
	const slug = slugOf(slugOrTitle);
	if (!slug) return false;
	let found = false;
	await deps.store.update<StoredTopics>(Records.topics(userId), (current) => {
		if (!current || !(slug in current)) return null;
		found = true;
		const { [slug]: _forgotten, ...rest } = current;
		return Object.keys(rest).length === 0 ? 'delete' : { value: rest };
	});
	return found;
}

function slugOf(slugOrTitle: unknown): string {
	if (typeof slugOrTitle !== 'string' || slugOrTitle.length > 200) throw invalid('A topic is named by its slug or title (at most 200 characters).');
	return topicSlug(slugOrTitle);
}
