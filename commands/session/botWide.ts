import type { MemoryCounters } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';

const count = (value: number) => value.toLocaleString('en-US');

/** `0.6 ms`, `12 ms`; a dash before any call. */
function milliseconds(value: number | null): string {
	if (value === null) return '–';
	return `${value < 10 ? value.toFixed(1) : Math.round(value)} ms`;
}

/**
 * The moderators' line of `/session status`: what this bot process's memory did since it started, e.g.
 * `Bot-wide: 1,234 turns captured (56 skipped: 50 stop-response, 6 empty-history), 789 contexts,
 * capture p50 0.6 ms / p99 2.1 ms, context p50 0.4 ms / p99 1.8 ms, store: up`.
 */
export function botWideLine(stats: MemoryCounters, text: SessionText): string {
	const reasons = Object.entries(stats.turnsSkipped).filter(([, skipped]) => skipped > 0);
	const skipped = reasons.reduce((sum, [, value]) => sum + value, 0);
	const { capture, context } = stats.latency;
	return text.get('status.botWide.line', {
		turns: count(stats.turnsRecorded),
		skipped:
			(skipped === 0
				? text.get('status.botWide.noneSkipped')
				: text.get('status.botWide.skipped', {
						count: count(skipped),
						reasons: reasons.map(([reason, value]) => `${count(value)} ${reason}`).join(', ')
					})) + (stats.turnsFailed > 0 ? text.get('status.botWide.failed', { count: count(stats.turnsFailed) }) : ''),
		contexts: count(stats.contextsBuilt),
		contextsFailed: stats.contextsFailed > 0 ? text.get('status.botWide.contextsFailed', { count: count(stats.contextsFailed) }) : '',
		captureP50: milliseconds(capture.p50Ms),
		captureP99: milliseconds(capture.p99Ms),
		contextP50: milliseconds(context.p50Ms),
		contextP99: milliseconds(context.p99Ms),
		store: text.get(stats.store.available ? 'status.botWide.up' : 'status.botWide.down')
	});
}
