/** How a chat completions call failed. */
export type ChatFailureKind = 'timeout' | 'rate-limited' | 'http' | 'network' | 'bad-response' | 'aborted';

export const CHAT_FAILURE_KINDS: readonly ChatFailureKind[] = ['timeout', 'rate-limited', 'http', 'network', 'bad-response', 'aborted'];

/** A failed call, with what the caller needs to react: the HTTP status and, for a 429, how long to back off. */
export class ChatFailure extends Error {
	public constructor(
		public readonly kind: ChatFailureKind,
		message: string,
		public readonly status?: number,
		public readonly retryAfterMs?: number
	) {
		super(message);
		this.name = 'ChatFailure';
	}
}

/** What the endpoint answered: the assistant's text and the token usage it reported, if any. */
export interface ChatAnswer {
	content: string;
	model: string | null;
	inputTokens: number | null;
	outputTokens: number | null;
}

export interface ChatRequest {
	/** The endpoint's base, e.g. `http://127.0.0.1:8080/v1`; `/chat/completions` is appended. */
	baseUrl: string;
	apiKey: string | null;
	model: string;
	messages: { role: 'system' | 'user'; content: string }[];
	maxTokens: number;
	timeoutMs: number;
	/** Aborts the call (the engine closing). */
	signal: AbortSignal;
}

/** Used when a 429 names no Retry-After. */
const DEFAULT_RETRY_AFTER_MS = 60_000;
const MAX_RETRY_AFTER_MS = 3_600_000;

/** `Retry-After` as seconds or an HTTP date, bounded to one hour. */
export function retryAfterMs(header: string | null, realNow = Date.now()): number {
	if (!header) return DEFAULT_RETRY_AFTER_MS;
	const seconds = Number(header.trim());
	const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - realNow;
	if (!Number.isFinite(ms)) return DEFAULT_RETRY_AFTER_MS;
	return Math.min(MAX_RETRY_AFTER_MS, Math.max(1000, ms));
}

/**
 * One POST to an OpenAI-compatible `/chat/completions` endpoint. Rejects only with a {@link ChatFailure}.
 * @example
 * const answer = await chatCompletion({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: null, model: 'gpt-4o-mini', messages, maxTokens: 600, timeoutMs: 20_000, signal });
 */
export async function chatCompletion(request: ChatRequest): Promise<ChatAnswer> {
	const controller = new AbortController();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		controller.abort();
	}, request.timeoutMs);
	const stop = () => controller.abort();
	if (request.signal.aborted) controller.abort();
	request.signal.addEventListener('abort', stop, { once: true });
	try {
		const response = await fetch(`${request.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...(request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {}) },
			body: JSON.stringify({ model: request.model, messages: request.messages, temperature: 0, max_tokens: request.maxTokens }),
			signal: controller.signal
		});
		const body = await response.text();
		if (response.status === 429)
			throw new ChatFailure(
				'rate-limited',
				'the endpoint answered 429 Too Many Requests',
				429,
				retryAfterMs(response.headers.get('retry-after'))
			);
		if (response.status !== 200)
			throw new ChatFailure('http', `the endpoint answered ${response.status}: ${body.slice(0, 200)}`, response.status);
		return parseAnswer(body);
	} catch (error) {
		if (error instanceof ChatFailure) throw error;
		if (timedOut) throw new ChatFailure('timeout', `no answer within ${request.timeoutMs} ms`);
		if (controller.signal.aborted) throw new ChatFailure('aborted', 'the call was aborted (the engine is closing)');
		throw new ChatFailure('network', `the endpoint could not be reached: ${(error as Error).message}`);
	} finally {
		clearTimeout(timer);
		request.signal.removeEventListener('abort', stop);
	}
}

function parseAnswer(body: string): ChatAnswer {
	let json: unknown;
	try {
		json = JSON.parse(body);
	} catch {
		throw new ChatFailure('bad-response', `the answer is not JSON: ${JSON.stringify(body.slice(0, 120))}`, 200);
	}
	const answer = json as {
		model?: unknown;
		choices?: { message?: { content?: unknown } }[];
		usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
	};
	const content = answer?.choices?.[0]?.message?.content;
	if (typeof content !== 'string') throw new ChatFailure('bad-response', 'the answer has no choices[0].message.content string', 200);
	const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null);
	return {
		content,
		model: typeof answer.model === 'string' ? answer.model : null,
		inputTokens: count(answer.usage?.prompt_tokens),
		outputTokens: count(answer.usage?.completion_tokens)
	};
}
