import type { ForgettingScalePoint, ForgettingScaleResult } from './results';

/** The channel sizes the forgetting targets compare: what is forgotten the same, the archive ten times larger. */
const FROM = 10_000;
const TO = 100_000;

/** The forgetting targets' figures, worst backend first (section 2c), or null where the section did not run both sizes. */
export interface ForgettingFigures {
	/** Which backends the figures come from. */
	backends: string;
	/** Erasure (`clearAll`) at 100,000 messages over 10,000. */
	erasureGrowth: number;
	/** One deletion's p50 at 100,000 messages over 10,000. */
	deleteGrowth: number;
	/** One deletion's p50 over the channel's `recordTurn` p50, at 100,000 messages. */
	deleteToRecord: number;
	/** 100 messages deleted in one call over one deletion's p50, at 100,000 messages. */
	bulkToDelete: number;
	/** The event loop's longest block in any of these calls, at either size. */
	longestBlockMs: number;
	/** At 100,000 messages, `recordTurn`'s p50 once 10,000 more messages were deleted, over its p50 before. */
	spamRecordGrowth: number;
}

/** The worst of each figure over the backends that measured 10,000 and 100,000 messages. */
export function forgettingFigures(results: readonly ForgettingScaleResult[] | undefined): ForgettingFigures | null {
	const measured = (results ?? []).flatMap((result) => {
		const from = result.points.find((point) => point.messages === FROM);
		const to = result.points.find((point) => point.messages === TO);
		return from && to ? [{ backend: result.backend, from, to }] : [];
	});
	if (measured.length === 0) return null;
	const worst = (figure: (from: ForgettingScalePoint, to: ForgettingScalePoint) => number) =>
		Math.max(...measured.map(({ from, to }) => figure(from, to)));
	const block = (point: ForgettingScalePoint) => Math.max(point.deleteBlockMs, point.bulkDelete.longestBlockMs, point.clearAll.longestBlockMs);
	return {
		backends: measured.map(({ backend }) => backend).join(', '),
		erasureGrowth: worst((from, to) => to.clearAll.ms / from.clearAll.ms),
		deleteGrowth: worst((from, to) => to.deleteOne.p50 / from.deleteOne.p50),
		deleteToRecord: worst((_, to) => to.deleteOne.p50 / to.recordTurn.p50),
		bulkToDelete: worst((_, to) => to.bulkDelete.ms / to.deleteOne.p50),
		longestBlockMs: worst((from, to) => Math.max(block(from), block(to))),
		spamRecordGrowth: worst((_, to) => to.afterSpam.recordTurn.p50 / to.recordTurn.p50)
	};
}
