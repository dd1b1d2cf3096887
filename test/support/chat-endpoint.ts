import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the endpoint received. */
export interface ChatRequestSeen {
	path: string;
	authorization: string | undefined;
	body: { model: string; messages: { role: string; content: string }[]; max_tokens?: number };
	/** The source ids listed in the user message, in order (`[id 1]`, `[ids 2, 3]`). */
	ids: string[];
}

/** What the endpoint answers to one request. */
export interface ScriptedAnswer {
	status?: number;
	headers?: Record<string, string>;
	/** A raw body; `content` wraps text in a chat completion instead. */
	body?: string;
	content?: string;
	usage?: { prompt_tokens: number; completion_tokens: number } | null;
	/** Waits this long before answering (a timeout test). */
	delayMs?: number;
}

export type Script = (request: ChatRequestSeen) => ScriptedAnswer;

/** The ids a prompt lists, as the summarizer writes them. */
export function listedIds(content: string): string[] {
	return [...content.matchAll(/^\[ids? ([^\]]+)\]/gm)].flatMap((match) => match[1]!.split(',').map((id) => id.trim()));
}

/** An answer citing every listed id, one line each. */
export const citeAll: Script = (request) => ({ content: request.ids.map((id, index) => `Fact ${index + 1} of the talk. [ids: ${id}]`).join('\n') });

/**
 * A small OpenAI-compatible chat completions server on 127.0.0.1 (random port), answering each
 * request with the next scripted answer (the last one repeats), and recording what it was asked.
 */
export class ChatEndpoint {
	public readonly requests: ChatRequestSeen[] = [];
	/** Events in the order they happened, for tests that compare with what the caller saw. */
	public readonly events: string[] = [];
	private scripts: Script[] = [citeAll];
	private readonly server: Server;
	private readonly pending = new Set<() => void>();

	private constructor(server: Server) {
		this.server = server;
	}

	/** `http://127.0.0.1:<port>/v1` */
	public get baseUrl(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
	}

	/** Answers the next requests with these, in order; the last repeats. */
	public script(...scripts: Script[]): void {
		this.scripts = scripts;
	}

	public async stop(): Promise<void> {
		for (const release of this.pending) release();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private async handle(request: IncomingMessage, response: import('node:http').ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestSeen['body'];
		const seen: ChatRequestSeen = {
			path: request.url ?? '',
			authorization: request.headers.authorization,
			body,
			ids: listedIds(body.messages.find((message) => message.role === 'user')?.content ?? '')
		};
		this.requests.push(seen);
		this.events.push('request');
		const script = this.scripts.length > 1 ? this.scripts.shift()! : this.scripts[0]!;
		const answer = script(seen);
		if (answer.delayMs) {
			await new Promise<void>((resolve) => {
				const release = () => {
					clearTimeout(timer);
					this.pending.delete(release);
					resolve();
				};
				const timer = setTimeout(release, answer.delayMs);
				this.pending.add(release);
			});
		}
		if (response.destroyed) return;
		const text =
			answer.body ??
			JSON.stringify({
				id: 'chatcmpl-test',
				object: 'chat.completion',
				model: body.model,
				choices: [{ index: 0, message: { role: 'assistant', content: answer.content ?? '' }, finish_reason: 'stop' }],
				...(answer.usage === null ? {} : { usage: answer.usage ?? { prompt_tokens: 1000, completion_tokens: 200, total_tokens: 1200 } })
			});
		response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
		response.end(text);
	}

	public static async start(): Promise<ChatEndpoint> {
		const endpoint: ChatEndpoint = new ChatEndpoint(createServer((request, response) => void endpoint.handle(request, response)));
		await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', resolve));
		return endpoint;
	}
}
