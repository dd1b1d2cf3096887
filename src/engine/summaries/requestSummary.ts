import type { MemoryConfig } from '../config';
import { tokenCount } from '../format/tokens';
import type { BackgroundSummary } from '../schemas';
import { ChatFailure, chatCompletion } from './chatCompletions';
import { checkSummary, type SummaryRejection, summaryPrompt } from './citations';
import type { SummarizerCounters } from './SummarizerCounters';
import type { SummaryInput } from './summarySources';

/** How one request for a background summary ended. */
export type SummaryAnswer =
	| { kind: 'failed'; failure: ChatFailure }
	| { kind: 'rejected'; reason: SummaryRejection; detail: string }
	| { kind: 'accepted'; summary: BackgroundSummary };

/**
 * Asks the endpoint for a summary of `input` and checks the answer: it is accepted only when every line
 * cites its sources and together they cover all of them. Counts the tokens and the cost either way.
 */
export async function requestSummary(
	config: MemoryConfig,
	input: SummaryInput,
	createdAt: () => number,
	signal: AbortSignal,
	counters: SummarizerCounters
): Promise<SummaryAnswer> {
	const givenIds = input.sources.flatMap((source) => source.ids);
	const messages = summaryPrompt(input.sources, config.maxSummaryLength);
	let answer;
	try {
		answer = await chatCompletion({
			baseUrl: config.llmBaseUrl!,
			apiKey: config.llmApiKey,
			model: config.llmModel,
			messages,
			maxTokens: Math.ceil(config.maxSummaryLength / 2) + 256,
			timeoutMs: config.llmTimeoutMs,
			signal
		});
	} catch (error) {
		return { kind: 'failed', failure: error instanceof ChatFailure ? error : new ChatFailure('network', String(error)) };
	}

	// The endpoint may not report usage; the BPE count of what was sent and received stands in.
	const inputTokens = answer.inputTokens ?? messages.reduce((sum, message) => sum + tokenCount(message.content), 0);
	const outputTokens = answer.outputTokens ?? tokenCount(answer.content);
	const costUsd = (inputTokens * config.llmPriceInputPerMTok + outputTokens * config.llmPriceOutputPerMTok) / 1_000_000;
	counters.inputTokens += inputTokens;
	counters.outputTokens += outputTokens;
	counters.costUsd += costUsd;

	const checked = checkSummary(answer.content, givenIds, config.maxSummaryLength);
	if (!checked.ok) return { kind: 'rejected', reason: checked.reason, detail: checked.detail };
	return {
		kind: 'accepted',
		summary: {
			text: checked.summary.text,
			sourceIds: checked.summary.sourceIds,
			authorIds: input.authorIds,
			coveredThrough: input.coveredThrough,
			model: answer.model ?? config.llmModel,
			inputTokens,
			outputTokens,
			costUsd,
			createdAt: createdAt(),
			stale: false
		}
	};
}
