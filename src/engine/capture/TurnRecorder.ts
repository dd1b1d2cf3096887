import type { ReplyCalls } from '../ReplyCalls';
import { type MemoryTurn, MemoryTurnSchema, parseInput, type RecordTurnResult, type ShortTermEntry } from '../schemas';
import type { EngineStats } from '../stats/EngineStats';
import type { BackgroundSummarizer } from '../summaries/BackgroundSummarizer';
import type { CaptureParts } from './CaptureParts';
import type { CapturesInFlight } from './CapturesInFlight';
import { recordTurn } from './recordTurn';

/** What recording a turn works with. */
export interface TurnRecorderParts {
	capture: CaptureParts;
	captures: CapturesInFlight;
	/** Null unless `MEMORY_LLM_BASE_URL` is set. */
	summarizer: BackgroundSummarizer | null;
	stats: EngineStats;
	replyCalls: ReplyCalls;
	now: () => number;
}

/** `recordTurn` as a bot calls it: checked, timed and counted, tracked for erasures, and offered to the background summarizer once stored. */
export class TurnRecorder {
	public constructor(private readonly parts: TurnRecorderParts) {}

	public record(turn: MemoryTurn): Promise<RecordTurnResult> {
		const { stats, captures, summarizer, capture, now, replyCalls } = this.parts;
		return replyCalls.run(() =>
			stats.capture(async () => {
				const parsed = parseInput(MemoryTurnSchema, turn, 'turn');
				const written: [string, ShortTermEntry][] = [];
				const onLiveWrite = summarizer ? (key: string, entry: ShortTermEntry) => void written.push([key, entry]) : undefined;
				try {
					return await captures.track(recordTurn({ ...capture, onLiveWrite }, parsed, now()));
				} finally {
					// Only queued once the turn is stored: the summarizer's worker starts after this call has returned.
					for (const [key, entry] of written) summarizer?.offer(key, entry);
				}
			})
		);
	}
}
