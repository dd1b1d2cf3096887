import { voicesOf } from '../privacy/voices';
import type { Archive } from '../archive/Archive';
import { tokenCount } from '../format/tokens';
import { byTime } from '../ledger/entries';
import type { SettingsRepository } from '../records/SettingsRepository';
import { visibilityOf } from '../privacy/visibility';
import type { ShortTermEntry, StoredMessage } from '../schemas';
import type { SummarySource } from './citations';
import { digestLines } from './servable';

/** The sources sent in one call, in tokens; older ones are left to the digest. */
export const MAX_SOURCE_TOKENS = 8000;

/** What one background summary is asked to cover. */
export interface SummaryInput {
	sources: SummarySource[];
	/** The authors of the sources, so erasure finds the summary built from a member's words. */
	authorIds: string[];
	/** The newest digest line covered. */
	coveredThrough: number;
}

/**
 * The messages the digest's event lines cite, read from the scope's archive (whole, where the digest
 * cut them), newest kept first within {@link MAX_SOURCE_TOKENS}; a count line of small talk, and an
 * event line whose messages are no longer archived, stand for their messages. Nothing of a FULL
 * member is ever sent.
 */
export async function summarySources(archive: Archive, settings: SettingsRepository, key: string, entry: ShortTermEntry): Promise<SummaryInput> {
	const lines = [...digestLines(entry)].sort((a, b) => a.ts - b.ts);
	const index = lines.some((line) => line.kind === 'event') ? await archive.open(key) : null;
	const candidates: { source: SummarySource; authorIds: string[] }[] = [];
	const seen = new Set<string>();
	for (const line of lines) {
		const standIn: string[] = [];
		for (const id of line.sourceIds) {
			if (seen.has(id)) continue;
			seen.add(id);
			const message = line.kind === 'event' ? index?.get(id) : undefined;
			if (message) candidates.push({ source: { ids: [id], message }, authorIds: voicesOf(message) });
			else standIn.push(id);
		}
		if (standIn.length > 0) {
			const note: StoredMessage = { id: standIn[0]!, role: 'user', authorName: 'digest note', text: line.text, ts: line.ts };
			candidates.push({ source: { ids: standIn, message: note }, authorIds: line.authorIds ?? [] });
		}
	}
	const visibility = await visibilityOf(
		settings,
		candidates.flatMap((candidate) => candidate.authorIds)
	);
	const visible = candidates
		.filter((candidate) => candidate.authorIds.every((id) => visibility.visible(id)))
		.sort((a, b) => byTime(a.source.message, b.source.message));

	const chosen: typeof visible = [];
	let budget = MAX_SOURCE_TOKENS;
	for (const candidate of visible.reverse()) {
		budget -= tokenCount(candidate.source.message.text) + 12 * candidate.source.ids.length;
		if (budget < 0) break;
		chosen.unshift(candidate);
	}
	return {
		sources: chosen.map((candidate) => candidate.source),
		authorIds: [...new Set(chosen.flatMap((candidate) => candidate.authorIds))],
		coveredThrough: Math.max(0, ...lines.map((line) => line.ts))
	};
}
