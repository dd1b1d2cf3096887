import { CHAT_FAILURE_KINDS, type ChatFailureKind } from './chatCompletions';
import { SUMMARY_REJECTIONS, type SummaryRejection } from './citations';

/** What the background summarizer did, for `memory.stats()`. */
export interface SummarizerCounters {
	/** True when `MEMORY_LLM_BASE_URL` is set. */
	enabled: boolean;
	/** Requests sent to the endpoint. */
	calls: number;
	/** Summaries stored. */
	successes: number;
	/** Answers refused, by reason; the digest kept serving. */
	rejections: Record<SummaryRejection, number>;
	/** Calls that failed, by kind. */
	errors: Record<ChatFailureKind | 'store', number>;
	/** Summaries not attempted because a daily cap was reached. */
	capped: { channel: number; process: number };
	/** Scopes not queued because the queue was full. */
	dropped: number;
	/** Answers thrown away because a cited message changed, or a member was erased, during the call. */
	superseded: number;
	/** Summaries that stopped serving because a cited message was edited or deleted (they are dropped, and built again). */
	markedStale: number;
	/** Prompt tokens the endpoint reported, over every call. */
	inputTokens: number;
	/** Completion tokens the endpoint reported, over every call. */
	outputTokens: number;
	/** What the calls cost in US dollars, at `MEMORY_LLM_PRICE_INPUT_PER_MTOK` and `MEMORY_LLM_PRICE_OUTPUT_PER_MTOK`. */
	costUsd: number;
}

/** Fresh counters, all zero. */
export function summarizerCounters(enabled: boolean): SummarizerCounters {
	return {
		enabled,
		calls: 0,
		successes: 0,
		rejections: Object.fromEntries(SUMMARY_REJECTIONS.map((reason) => [reason, 0])) as Record<SummaryRejection, number>,
		errors: Object.fromEntries([...CHAT_FAILURE_KINDS, 'store'].map((kind) => [kind, 0])) as Record<ChatFailureKind | 'store', number>,
		capped: { channel: 0, process: 0 },
		dropped: 0,
		superseded: 0,
		markedStale: 0,
		inputTokens: 0,
		outputTokens: 0,
		costUsd: 0
	};
}
