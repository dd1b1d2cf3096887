/** The name a misspelt one most likely meant: for settings (unknownSettings.ts) and the CLI's commands and options alike. */
export interface ClosestName {
	name: string;
	/** Edits between the two (see {@link editDistance}). */
	distance: number;
	/** Whether the two are close enough for a misspelling, so that "did you mean" is a fair question. */
	likelyTypo: boolean;
}

/**
 * The candidate nearest `given`, by `distance` (edit distance unless the caller measures otherwise); undefined when there
 * is no candidate. The first of equally near candidates wins.
 */
export function closestName(
	given: string,
	candidates: readonly string[],
	distance: (given: string, candidate: string) => number = editDistance
): ClosestName | undefined {
	let best: { name: string; distance: number } | undefined;
	for (const name of candidates) {
		const edits = distance(given, name);
		if (!best || edits < best.distance) best = { name, distance: edits };
	}
	return best && { ...best, likelyTypo: isLikelyTypo(best.distance, best.name) };
}

/** A few characters apart: two, or one in five of the intended name, whichever is more. */
export function isLikelyTypo(distance: number, intended: string): boolean {
	return distance <= Math.max(2, Math.floor(intended.length / 5));
}

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
		}
		previous = current;
	}
	return previous[b.length]!;
}
