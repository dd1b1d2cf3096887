import type { MemoryConfig } from '../config';
import type { BackgroundSummary, DigestLine, ShortTermEntry } from '../schemas';

/** The digest lines of an entry (none on entries written before digests existed). */
export function digestLines(entry: Pick<ShortTermEntry, 'digest'>): readonly DigestLine[] {
	return entry.digest ?? [];
}

/**
 * Digest lines the background summary does not cover: all of them when there is none or it is stale;
 * else the lines written after it, and the lines it covered that have gained messages since (a count
 * line grows). Lines it left out on purpose (a FULL member's, the oldest beyond the input's size) stay out.
 */
export function linesPastSummary(entry: Pick<ShortTermEntry, 'digest' | 'backgroundSummary'>): readonly DigestLine[] {
	const summary = entry.backgroundSummary;
	const lines = digestLines(entry);
	if (!summary || summary.stale) return lines;
	const cited = new Set(summary.sourceIds);
	return lines.filter(
		(line) => line.sourceIds.some((id) => !cited.has(id)) && (line.ts > summary.coveredThrough || line.sourceIds.some((id) => cited.has(id)))
	);
}

/** The background summary when it may be served: no cited message changed since it was written. */
export function servableSummary(entry: ShortTermEntry): BackgroundSummary | null {
	const summary = entry.backgroundSummary;
	return summary && !summary.stale ? summary : null;
}

/** Whether a scope should be summarized in the background now. */
export function wantsSummary(entry: ShortTermEntry, config: MemoryConfig): boolean {
	// The persona's own summary wins over a background one: a call would be wasted.
	if (entry.summary || Object.keys(entry.categories ?? {}).length > 0) return false;
	if (entry.backgroundSummary?.stale && digestLines(entry).length > 0) return true;
	return linesPastSummary(entry).length >= config.llmMinNewDigestLines;
}
