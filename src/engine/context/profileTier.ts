import { measured } from './budget';
import { itemLine } from '../format/lines';
import { Headers, tagsLine } from '../format/pluginLines';
import { flattenForContext } from '../format/text';
import { processTerm } from '../archive/index/terms';
import { tokenCount, truncateToTokens } from '../format/tokens';
import type { ContextBlock, StoredTopics, UserProfile } from '../schemas';

const HEADER = Headers.profile;
const TOPICS_HEADER = Headers.topics;

/** Stemmed terms of a text, as the archive's search sees them. */
function terms(text: string): Set<string> {
	return new Set(text.split(/[^\p{L}\p{N}]+/u).flatMap((word) => processTerm(word) ?? []));
}

/**
 * The profile tier: preferences as `- name: value`, notes as `- note` and tags, then the topic notes sharing a
 * stemmed term with the query, most shared terms first. Lines are chosen in that priority until
 * `budget` is spent (a topic line may be cut), then shown in reading order.
 */
export function profileBlock(profile: UserProfile | undefined, topics: StoredTopics | undefined, query: string, budget: number): ContextBlock | null {
	let used = tokenCount(HEADER);
	if (budget <= used) return null;
	const take = (line: string) => {
		const cost = tokenCount(line) + 1;
		if (used + cost > budget) return false;
		used += cost;
		return true;
	};

	const preferences = Object.entries(profile?.preferences ?? {}).flatMap(([name, value]) => {
		const line = itemLine(`${name}: ${value}`);
		return take(line) ? [line] : [];
	});

	const wanted = terms(query);
	const matching = Object.entries(topics ?? {})
		.map(([slug, topic]) => {
			const own = terms(`${topic.title} ${topic.note}`);
			return { slug, topic, shared: [...wanted].filter((term) => own.has(term)).length };
		})
		.filter((candidate) => candidate.shared > 0)
		.sort((a, b) => b.shared - a.shared || b.topic.updatedAt - a.topic.updatedAt);
	const topicLines: string[] = [];
	const sourceIds: string[] = [];
	for (const { slug, topic } of matching) {
		const header = topicLines.length === 0 ? tokenCount(TOPICS_HEADER) + 1 : 0;
		const room = budget - used - header - 1;
		// Nothing useful fits in the last few tokens.
		if (room < 8) break;
		const full = itemLine(`${topic.title}: ${topic.note}`);
		const line = tokenCount(full) <= room ? full : truncateToTokens(full, room);
		if (!line) continue;
		used += header + tokenCount(line) + 1;
		topicLines.push(line);
		sourceIds.push(`topic:${slug}`);
	}

	const notes = (profile?.notes ?? []).flatMap((note) => {
		const line = itemLine(note);
		return take(line) ? [line] : [];
	});
	const tags = (profile?.tags ?? []).map(flattenForContext);
	while (tags.length > 0 && !take(tagsLine(tags))) tags.pop();

	const lines = [
		HEADER,
		...preferences,
		...notes,
		...(tags.length > 0 ? [tagsLine(tags)] : []),
		...(topicLines.length > 0 ? [TOPICS_HEADER, ...topicLines] : [])
	];
	if (lines.length === 1) return null;
	const { text, tokens } = measured(lines);
	return { tier: 'profile', text, tokens, sourceIds };
}
