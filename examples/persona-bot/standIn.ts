import { eng } from 'stopword';
// In your bot: from 'sapphire-plugin-memory'.
import { REMEMBER_TOOL_NAME, SHORT_TERM_MEMORY_TOOL_NAME } from '../../src';
import type { ChatMessage, ChatModel, ToolCall } from './chat';

const STOP_WORDS = new Set(eng);

/**
 * A tiny deterministic stand-in for an LLM, so that the example runs with no endpoint and no key. It
 * reads only what a real model would: the system prompt (where the memory context goes) and the
 * messages. Before answering it
 * - calls `update_short_term_memory` when the context carries the plugin's nudge;
 * - calls `remember` when the member says "remember that …";
 * then it answers, quoting the line of its memory where the member said what best matches the
 * question (only the member's own words: a persona should not repeat one member's words to another).
 */
// eslint-disable-next-line @typescript-eslint/require-await -- a ChatModel returns a promise: a throw must reject, as a real call would
export const standInModel: ChatModel = async ({ messages, tools }) => {
	const system = messages.find((message) => message.role === 'system')?.content ?? '';
	const reader = new Reader(/^You are (\w+)/.exec(system)?.[1] ?? '');
	const lastUser = messages.findLastIndex((message) => message.role === 'user');
	const { speaker, text } = splitSpeaker(messages[lastUser]?.content ?? '');
	// Tools first, once per reply: after their results come back, the model answers.
	const toolsDone = messages.slice(lastUser + 1).some((message) => message.role === 'tool');
	const offered = new Set(tools.map((tool) => tool.function.name));
	if (!toolsDone) {
		const calls: ToolCall[] = [];
		if (offered.has(SHORT_TERM_MEMORY_TOOL_NAME) && system.includes(`Call ${SHORT_TERM_MEMORY_TOOL_NAME}`)) {
			calls.push(toolCall(SHORT_TERM_MEMORY_TOOL_NAME, { summary: reader.summarize(messages) }));
		}
		const remembered = /\bremember that (.+)/i.exec(text)?.[1];
		if (offered.has(REMEMBER_TOOL_NAME) && remembered) calls.push(toolCall(REMEMBER_TOOL_NAME, { kind: 'note', text: remembered }));
		if (calls.length > 0) return { content: null, toolCalls: calls };
	}
	return { content: reader.answer(system, speaker, text), toolCalls: [] };
};

/** What the stand-in understands of text, knowing its own name. */
class Reader {
	public constructor(private readonly name: string) {}

	/** The reply: a quote of the member's own matching words, or an acknowledgement. */
	public answer(system: string, speaker: string, text: string): string {
		const recalled = this.recall(system, speaker, text);
		if (recalled) return `${speaker}, you told me: “${this.withoutAddress(recalled)}”`;
		const lines = system.split('\n').filter((line) => MEMORY_LINE.test(line)).length;
		return lines === 0
			? `Nice to meet you, ${speaker}! I don’t remember anything about this conversation yet.`
			: `Noted, ${speaker}. (I have ${lines} remembered messages in mind.)`;
	}

	/** A keyword summary of the members' messages, one line per speaker. */
	public summarize(messages: ChatMessage[]): string {
		const bySpeaker = new Map<string, Set<string>>();
		for (const message of messages) {
			if (message.role !== 'user') continue;
			const { speaker, text } = splitSpeaker(message.content);
			const known = bySpeaker.get(speaker) ?? new Set<string>();
			for (const word of this.words(text)) known.add(word);
			bySpeaker.set(speaker, known);
		}
		return [...bySpeaker].map(([speaker, topics]) => `${speaker} talked about ${[...topics].slice(0, 8).join(', ')}.`).join('\n');
	}

	/** The memory line (`Maya: …`, or a digest's `[18:05] Maya: …`) where `speaker` said what shares the most words with `text`, if any. */
	private recall(system: string, speaker: string, text: string): string | undefined {
		const asked = this.words(text);
		let best: { said: string; score: number } | undefined;
		for (const line of system.split('\n')) {
			const [, who, said] = MEMORY_LINE.exec(line) ?? [];
			if (who !== speaker || !said || said === text) continue;
			const score = [...this.words(said)].filter((word) => asked.has(word)).length;
			if (score > (best?.score ?? 0)) best = { said, score };
		}
		return best?.said;
	}

	/** The words a message is about: no stop words, no mentions, not the persona's own name. */
	private words(text: string): Set<string> {
		const plain = text.replace(/<[@#][!&]?\d+>/g, ' ').toLowerCase();
		return new Set((plain.match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((word) => word !== this.name.toLowerCase() && !STOP_WORDS.has(word)));
	}

	/** `<@id> hi` and `Sol, hi` are both `hi`. */
	private withoutAddress(text: string): string {
		return text.replace(new RegExp(`^\\s*(?:<@!?\\d+>|${this.name})[,:!]?\\s*`, 'i'), '');
	}
}

/** A message line of the memory context, `Maya: text`, or a digest line, `[18:05] Maya: text`. */
const MEMORY_LINE = /^(?:\[\d\d:\d\d\] )?([^:]+): (.+)$/;

/** `Maya: hello` → `{ speaker: 'Maya', text: 'hello' }`; the example sends member messages that way. */
function splitSpeaker(content: string): { speaker: string; text: string } {
	const colon = content.indexOf(': ');
	return colon < 0 ? { speaker: '', text: content } : { speaker: content.slice(0, colon), text: content.slice(colon + 2) };
}

let calls = 0;

function toolCall(name: string, args: object): ToolCall {
	calls += 1;
	return { id: `call_${calls}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}
