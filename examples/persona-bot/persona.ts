import { container } from '@sapphire/framework';
import type { Collection, Message } from 'discord.js';
// In your bot: from 'sapphire-plugin-memory'.
import {
	contextForMessage,
	handleRememberTool,
	handleShortTermMemoryTool,
	type MemoryContext,
	MemoryEvents,
	type PersonaIdentity,
	REMEMBER_TOOL_NAME,
	rememberTool,
	SHORT_TERM_MEMORY_TOOL_NAME,
	shortTermMemoryToolFor,
	turnFromMessages
} from '../../src';
import type { ChatMessage, ChatModel, ToolCall } from './chat';

/** Who the bot plays. */
export interface PersonaDefinition extends PersonaIdentity {
	id: string;
	name: string;
	/** The system prompt; the memory context is appended to it. */
	prompt: string;
}

/** Sol, the example's persona. */
export const SOL: PersonaDefinition = {
	id: 'sol',
	name: 'Sol',
	prompt:
		'You are Sol, a warm and concise persona on a Discord server. Members write to you as "Name: message". Keep replies to one or ' +
		'two sentences.'
};

/** What a generation went through, for a bot that wants to show or log it (the demo prints it). */
export interface PersonaObserver {
	/** The memory context injected before generating. */
	context?(message: Message, context: MemoryContext): void;
	/** A memory tool the model called, with the result sent back to it. */
	toolCall?(message: Message, call: ToolCall, result: string): void;
	/** The reply Discord accepted. */
	reply?(message: Message, reply: Message): void;
	/** The generation failed: nothing was sent and no turn is reported. */
	failed?(message: Message, error: unknown): void;
}

/** How many earlier messages of the channel the model sees. */
const HISTORY_LIMIT = 10;
/** Tool rounds per reply before the model must answer. */
const MAX_TOOL_ROUNDS = 3;

/**
 * The persona: answers a message addressed to it (a mention, its name first, or a DM) with the
 * plugin's three integration points: the context before generating, the memory tools during it,
 * `MemoryEvents.TurnCompleted` after the reply is sent.
 */
export class Persona {
	public constructor(
		private readonly model: ChatModel,
		public readonly definition: PersonaDefinition = SOL,
		private readonly observer: PersonaObserver = {}
	) {}

	/** True when `message` asks this persona for an answer. */
	public isAddressed(message: Message): boolean {
		if (message.author.bot || message.system) return false;
		if (!message.inGuild()) return true;
		const me = message.client.user;
		return message.mentions.users.has(me.id) || new RegExp(`^${this.definition.name}\\b`, 'i').test(message.content);
	}

	/** Answers `message` if it is addressed to the persona; never throws. */
	public async handle(message: Message): Promise<void> {
		if (!this.isAddressed(message) || !message.channel.isSendable()) return;
		try {
			// 1. Before generating: the memory of this member, channel and persona (empty, never a throw, when the store is down).
			const memory = await contextForMessage(message, this.definition, { query: message.cleanContent });
			this.observer.context?.(message, memory);
			const history = await message.channel.messages.fetch({ limit: HISTORY_LIMIT, before: message.id });
			await message.channel.sendTyping().catch(() => undefined);
			const text = await this.generate(message, memory, history);
			const reply = await message.reply({ content: text.slice(0, 2000), allowedMentions: { repliedUser: false } });
			this.observer.reply?.(message, reply);
			// 3. After the turn: one event; the plugin records it in the background.
			message.client.emit(
				MemoryEvents.TurnCompleted,
				turnFromMessages({ trigger: message, history, responses: [reply], persona: this.definition })
			);
		} catch (error) {
			container.logger.error(`[persona] could not answer message ${message.id}:`, error);
			this.observer.failed?.(message, error);
		}
	}

	/** The model's answer, after running the memory tools it calls (2. during generation). */
	private async generate(message: Message, memory: MemoryContext, history: Collection<string, Message>): Promise<string> {
		const system = memory.text ? `${this.definition.prompt}\n\nWhat you remember:\n${memory.text}` : this.definition.prompt;
		const messages: ChatMessage[] = [
			{ role: 'system', content: system },
			...[...history.values()].reverse().map((earlier) => this.chatMessage(earlier)),
			this.chatMessage(message)
		];
		const tools = [await shortTermMemoryToolFor(message.guildId), rememberTool];
		for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
			const answer = await this.model({ messages, tools });
			if (answer.toolCalls.length === 0) return answer.content?.trim() || '…';
			messages.push({ role: 'assistant', content: answer.content, tool_calls: answer.toolCalls });
			for (const call of answer.toolCalls) {
				const result = await this.runTool(call, message);
				this.observer.toolCall?.(message, call, result);
				messages.push({ role: 'tool', tool_call_id: call.id, content: result });
			}
		}
		const last = await this.model({ messages, tools: [] });
		return last.content?.trim() || '…';
	}

	private runTool(call: ToolCall, message: Message): Promise<string> {
		switch (call.function.name) {
			case SHORT_TERM_MEMORY_TOOL_NAME:
				return handleShortTermMemoryTool(call.function.arguments, message, this.definition);
			case REMEMBER_TOOL_NAME:
				return handleRememberTool(call.function.arguments, message);
			default:
				return Promise.resolve(JSON.stringify({ ok: false, error: `There is no tool called ${call.function.name}.` }));
		}
	}

	/** The persona's own messages are the assistant's; a member's carry their name, so the model knows who speaks. */
	private chatMessage(message: Message): ChatMessage {
		if (message.author.id === message.client.user.id) return { role: 'assistant', content: message.content };
		return { role: 'user', content: `${message.member?.displayName ?? message.author.displayName}: ${message.cleanContent}` };
	}
}
