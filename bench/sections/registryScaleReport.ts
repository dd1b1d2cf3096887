import { count, ms, table } from '../format';
import type { RegistryScaleResult } from '../results';

/** The registry-scale section: per backend and size, a new member's first turn, its ratio to the first size, and the sweep. */
export function renderRegistryScale(results: readonly RegistryScaleResult[]): string {
	const notes: string[] = [];
	const rows = results.flatMap((result) => {
		if (result.skipped || result.error)
			notes.push(`${result.backend}: ${result.skipped ? `skipped: ${result.skipped}` : `failed: ${result.error!.split('\n')[0]!}`}`);
		return result.points.map((point) => [
			result.backend,
			count(point.members),
			`${point.seedSeconds.toFixed(1)} s`,
			ms(point.firstTurn.p50),
			ms(point.firstTurn.p99),
			Number.isFinite(point.ratioToFirst) ? `${point.ratioToFirst.toFixed(2)}×` : '—',
			`${(point.sweepMs / 1000).toFixed(2)} s`
		]);
	});
	notes.push('ratio: the median first turn at this size over the same at the first size, in this run; target ≤ 1.5×');
	return table(
		'Registry at scale: a new member’s first turn, and the sweep',
		['backend', 'members', 'seeded in', 'first turn p50', 'p99', 'ratio', 'sweep'],
		rows,
		notes
	);
}
