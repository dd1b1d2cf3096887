import type { LatencyHistogram } from '../../src/engine';
import type { MemoryCounters } from '../../src/engine';

const count = (value: number) => value.toLocaleString('en-US');

/** `0.6 ms`, `12 ms`; a dash before any call. */
function milliseconds(value: number | null): string {
	if (value === null) return '–';
	return `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

const percentiles = (name: string, histogram: LatencyHistogram) =>
	`${name} p50 ${milliseconds(histogram.p50Ms)} / p99 ${milliseconds(histogram.p99Ms)}`;

/**
 * The moderators' line of `/session status`: what this bot process's memory did since it started, e.g.
 * `Bot-wide: 1,234 turns captured (56 skipped: 50 stop-response, 6 empty-history), 789 contexts,
 * capture p50 0.6 ms / p99 2.1 ms, context p50 0.4 ms / p99 1.8 ms, store: up`.
 */
export function botWideLine(stats: MemoryCounters): string {
	const reasons = Object.entries(stats.turnsSkipped).filter(([, skipped]) => skipped > 0);
	const skipped = reasons.reduce((sum, [, value]) => sum + value, 0);
	const turns = [
		skipped === 0 ? 'none skipped' : `${count(skipped)} skipped: ${reasons.map(([reason, value]) => `${count(value)} ${reason}`).join(', ')}`,
		...(stats.turnsFailed > 0 ? [`${count(stats.turnsFailed)} failed`] : [])
	];
	const contexts = `${count(stats.contextsBuilt)} contexts${stats.contextsFailed > 0 ? ` (${count(stats.contextsFailed)} failed)` : ''}`;
	return [
		`Bot-wide: ${count(stats.turnsRecorded)} turns captured (${turns.join('; ')})`,
		contexts,
		percentiles('capture', stats.latency.capture),
		percentiles('context', stats.latency.context),
		`store: ${stats.store.available ? 'up' : 'down'}`
	].join(', ');
}
