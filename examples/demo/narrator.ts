import { styleText } from 'node:util';
import type { Message } from 'discord.js';
import type { MemoryContext, MemoryTurn, RecordTurnResult, SkipReason } from '../../src';
import type { ToolCall } from '../persona-bot/chat';
import type { PersonaObserver } from '../persona-bot/persona';

type Style = Parameters<typeof styleText>[0];

/** Colors only on a terminal, and never with NO_COLOR set (https://no-color.org). */
const colored = Boolean(process.stdout.isTTY) && process.env.NO_COLOR === undefined;
const paint = (style: Style, text: string) => (colored ? styleText(style, text) : text);

/** Lines of a context block shown; the rest is counted. */
const MAX_BLOCK_LINES = 8;

const SKIPS: Record<SkipReason, string> = {
	'privacy-full': 'the member chose /session privacy level:full, so nothing of a turn they trigger is stored',
	'stop-response': 'the persona was stopped',
	'empty-history': 'nothing left to store after clean-up',
	'no-response': 'the persona sent no reply'
};

/** What the demo counted, for the last lines. */
export interface DemoTally {
	captured: number;
	skipped: Map<string, number>;
	contexts: number;
	contextTokens: number;
	toolCalls: number;
}

/** Prints the demo turn by turn: what members say, the context injected, tool calls, replies, and what memory did. */
export class Narrator {
	public readonly tally: DemoTally = { captured: 0, skipped: new Map(), contexts: 0, contextTokens: 0, toolCalls: 0 };

	/** The persona's observer: the demo shows what happens inside each generation. */
	public readonly observer: PersonaObserver = {
		context: (_message: Message, context: MemoryContext) => this.context(context),
		toolCall: (_message: Message, call: ToolCall, result: string) => this.toolCall(call, result),
		reply: (_message: Message, reply: Message) => this.line(`${paint('magenta', 'Sol:')} ${this.named(reply.content)}`),
		failed: (_message: Message, error: unknown) => this.line(paint('red', `generation failed: ${String(error)}`))
	};

	#step = 0;

	public constructor(private readonly names: ReadonlyMap<string, string>) {}

	public title(lines: string[]): void {
		console.log(paint('bold', lines[0]!));
		for (const line of lines.slice(1)) console.log(paint('dim', `  ${line}`));
	}

	/** Opens a numbered step: where, and who acts. */
	public step(where: string, what: string): void {
		this.#step += 1;
		console.log(`\n${paint(['bold', 'cyan'], `${this.#step} · ${where}`)} ${paint('dim', `· ${what}`)}`);
	}

	public said(speaker: string, content: string): void {
		this.line(`${paint('bold', `${speaker}:`)} ${this.named(content)}`);
	}

	public note(text: string): void {
		this.line(paint('dim', text));
	}

	/** The memory context the persona was given, block by block with token counts. */
	public context(context: MemoryContext): void {
		this.tally.contexts += 1;
		this.tally.contextTokens += context.tokens;
		if (context.blocks.length === 0) {
			this.line(`${paint('yellow', 'context injected:')} empty (nothing remembered here yet), 0 tokens`);
			return;
		}
		const plural = context.blocks.length === 1 ? 'block' : 'blocks';
		this.line(`${paint('yellow', 'context injected:')} ${context.blocks.length} ${plural}, ${context.tokens} tokens`);
		for (const block of context.blocks) {
			const sources = block.sourceIds.length > 0 ? `, from ${block.sourceIds.length} messages` : '';
			this.line(`  ${paint(['bold', 'yellow'], `[${block.tier}]`)} ${block.tokens} tokens${sources}`);
			const lines = block.text.split('\n');
			for (const text of lines.slice(0, MAX_BLOCK_LINES)) this.line(paint('dim', `    │ ${this.named(text)}`));
			if (lines.length > MAX_BLOCK_LINES) this.line(paint('dim', `    │ … ${lines.length - MAX_BLOCK_LINES} more lines`));
		}
	}

	public toolCall(call: ToolCall, result: string): void {
		this.tally.toolCalls += 1;
		this.line(`${paint('blue', 'tool call:')} ${call.function.name} ${call.function.arguments}`);
		this.line(`${paint('blue', '   result:')} ${result}`);
	}

	/** What the post-turn listener did with the turn. */
	public recorded(turn: MemoryTurn, result: RecordTurnResult): void {
		if (!result.written) {
			const reason = result.skippedReason ?? 'unknown';
			this.tally.skipped.set(reason, (this.tally.skipped.get(reason) ?? 0) + 1);
			this.line(paint('red', `✘ skipped: ${reason}: ${SKIPS[reason as SkipReason] ?? 'see memory.stats()'}`));
			return;
		}
		this.tally.captured += 1;
		const messages = `${plural(turn.history.length, 'history message')} + ${plural(turn.responses.length, 'reply', 'replies')}`;
		this.line(paint('green', `✔ captured (${messages}) → ${result.keys.map((key) => this.scope(key)).join('; ')}`));
	}

	/** A member's `/session` command and the bot's (ephemeral) answer. */
	public session(command: string, answer: string): void {
		this.line(paint('bold', command));
		for (const text of answer.split('\n')) this.line(`  ${paint('dim', '│')} ${this.named(this.markdown(text))}`);
	}

	public blank(): void {
		console.log('');
	}

	public raw(text: string): void {
		console.log(text);
	}

	private line(text: string): void {
		console.log(`  ${text}`);
	}

	/** `shortterm:user:<user>:<channel>:sol` → `user scope Maya · #general · sol`. */
	private scope(key: string): string {
		const [, kind, owner, channel, persona] = key.split(':');
		const label = (id: string | undefined) => (id ? (this.names.get(id) ?? id) : '');
		if (kind === 'user') return `user scope ${label(owner)} · ${label(channel)}${persona ? ` · ${persona}` : ''}`;
		if (kind === 'server') return `server scope ${label(channel)}${persona ? ` · ${persona}` : ''}`;
		return key;
	}

	/** Discord's `<@id>` and `<#id>` with the demo's names, so the output reads. */
	private named(text: string): string {
		return text.replace(/<(@!?|#)(\d{15,22})>/g, (whole, kind: string, id: string) => {
			const name = this.names.get(id);
			if (!name) return whole;
			return kind === '#' ? `<${name}>` : `<@${name}>`;
		});
	}

	/** `**bold**` on a terminal, plain elsewhere. */
	private markdown(text: string): string {
		return text.replace(/\*\*([^*]+)\*\*/g, (_whole, inner: string) => paint('bold', inner));
	}
}

function plural(count: number, one: string, many = `${one}s`): string {
	return `${count} ${count === 1 ? one : many}`;
}
