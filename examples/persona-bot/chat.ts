/** One message of an OpenAI-compatible chat completions request. */
export type ChatMessage =
	| { role: 'system' | 'user'; content: string }
	| { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
	| { role: 'tool'; tool_call_id: string; content: string };

/** A tool call the model asked for; `arguments` is a JSON string. */
export interface ToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

/** A tool offered to the model, in the `tools` format (the plugin's `shortTermMemoryTool` and `rememberTool` are two). */
export interface ChatTool {
	type: 'function';
	function: { name: string; description: string; parameters: unknown };
}

/** What the model answered: text, tool calls, or both. */
export interface ChatAnswer {
	content: string | null;
	toolCalls: ToolCall[];
}

/** Anything that turns a conversation into the next assistant message: an HTTP endpoint, or the demo's stand-in. */
export type ChatModel = (request: { messages: ChatMessage[]; tools: ChatTool[] }) => Promise<ChatAnswer>;

/** Where an OpenAI-compatible API lives. */
export interface OpenAiCompatibleOptions {
	/** The API base, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`; `/chat/completions` is appended. */
	baseUrl: string;
	/** Sent as `Authorization: Bearer …` when given. */
	apiKey?: string;
	model: string;
	/** @default 60_000 */
	timeoutMs?: number;
}

/**
 * A {@link ChatModel} that POSTs to `{baseUrl}/chat/completions` with plain `fetch`: OpenAI, or any
 * server that speaks its API (llama.cpp, vLLM, Ollama, LM Studio, OpenRouter…).
 * @example
 * const model = openAiCompatible({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' });
 */
export function openAiCompatible(options: OpenAiCompatibleOptions): ChatModel {
	const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
	const headers: Record<string, string> = { 'content-type': 'application/json' };
	if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
	return async ({ messages, tools }) => {
		const response = await fetch(url, {
			method: 'POST',
			headers,
			// Some servers refuse an empty `tools` list.
			body: JSON.stringify({ model: options.model, messages, ...(tools.length > 0 ? { tools } : {}) }),
			signal: AbortSignal.timeout(options.timeoutMs ?? 60_000)
		});
		if (!response.ok) throw new Error(`${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
		const body = (await response.json()) as { choices?: { message?: { content?: string | null; tool_calls?: ToolCall[] } }[] };
		const message = body.choices?.[0]?.message;
		if (!message) throw new Error(`${url} answered without choices[0].message`);
		return { content: message.content ?? null, toolCalls: message.tool_calls ?? [] };
	};
}
