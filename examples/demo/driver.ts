import type { SapphireClient } from '@sapphire/framework';
import { Events, type Message } from 'discord.js';
import { MemoryEvents, type MemoryTurn, type RecordTurnResult } from '../../src';
import type { CommandOptionsInput, FakeDiscord, FakeUserInit, RecordedRequest } from '../../tools/fake-discord';
import type { Narrator } from './narrator';

/** How long one step may take before the demo gives up. */
const STEP_TIMEOUT_MS = 10_000;

/** The bot's answer to a `/session` command. */
export interface SessionAnswer {
	content: string;
	data: Record<string, unknown>;
	request: RecordedRequest;
	interactionId: string;
}

/** Plays members on the fake Discord and waits, step by step, until the bot and the plugin are done. */
export class DemoDriver {
	public constructor(
		private readonly fake: FakeDiscord,
		private readonly client: SapphireClient,
		private readonly narrator: Narrator,
		private readonly names: ReadonlyMap<string, string>
	) {}

	/** A member writes to the persona; resolves once it replied and the plugin captured or skipped the turn. */
	public async say(member: FakeUserInit, channelId: string, content: string): Promise<{ turn: MemoryTurn; result: RecordTurnResult }> {
		this.narrator.step(this.where(channelId), `${member.globalName} → Sol`);
		this.narrator.said(member.globalName!, content);
		const sent = this.fake.sendMessage({ channelId, author: member.id, content });
		const recorded = await this.waitFor(
			MemoryEvents.TurnRecorded,
			(turn: MemoryTurn) => turn.history.some((message) => message.messageId === sent.id),
			`the turn of message ${String(sent.id)}`
		);
		const [turn, result] = recorded as [MemoryTurn, RecordTurnResult];
		this.narrator.recorded(turn, result);
		return { turn, result };
	}

	/** A member talks in the channel without addressing the persona: no reply, no turn. */
	public async aside(member: FakeUserInit, channelId: string, content: string): Promise<void> {
		this.narrator.step(this.where(channelId), `${member.globalName}, not to Sol`);
		this.narrator.said(member.globalName!, content);
		const sent = this.fake.sendMessage({ channelId, author: member.id, content });
		await this.waitFor(Events.MessageCreate, (message: Message) => message.id === sent.id, `message ${String(sent.id)}`);
		this.narrator.note('not addressed to Sol: no reply and no turn; it joins the history of the next turn here');
	}

	/** A member runs `/session <subcommand>`; prints and returns the answer. */
	public async session(
		member: FakeUserInit,
		channelId: string,
		subcommand: string,
		options?: CommandOptionsInput,
		quiet = false
	): Promise<SessionAnswer> {
		const command = `/session ${subcommand}${Object.entries(options ?? {})
			.map(([name, value]) => ` ${name}:${String(value)}`)
			.join('')}`;
		if (!quiet) this.narrator.step(this.where(channelId), `${member.globalName} runs ${command}`);
		const interaction = this.fake.slashCommand({ name: 'session', subcommand, ...(options ? { options } : {}), user: member.id, channelId });
		const answer = await this.interactionAnswer(interaction.id);
		this.narrator.session(`${command} (only ${member.globalName} sees the answer)`, answer.content);
		return answer;
	}

	/** A `/session` subcommand that asks first (`clear scope:all`, `privacy level:full`), then the member clicks its confirmation button. */
	public async confirmed(member: FakeUserInit, channelId: string, subcommand: string, options: CommandOptionsInput): Promise<string> {
		const command = `/session ${subcommand}${Object.entries(options)
			.map(([name, value]) => ` ${name}:${String(value)}`)
			.join('')}`;
		this.narrator.step(this.where(channelId), `${member.globalName} runs ${command}`);
		const asked = await this.session(member, channelId, subcommand, options, true);
		const buttons = ((asked.data.components as { components?: { custom_id?: string; label?: string }[] }[] | undefined) ?? []).flatMap(
			(row) => row.components ?? []
		);
		const confirm = buttons.find((button) => button.custom_id?.includes(':confirm:'));
		if (!confirm?.custom_id) throw new Error(`${command} showed no confirmation button: ${JSON.stringify(asked.data)}`);
		const original = this.fake.originalMessage(asked.interactionId);
		if (!original) throw new Error('the confirmation message is missing');
		const click = this.fake.clickButton({ customId: confirm.custom_id, messageId: String(original.id), user: member.id });
		const done = await this.interactionAnswer(click.id);
		this.narrator.session(`${member.globalName} clicks “${confirm.label ?? 'confirm'}”`, done.content);
		return done.content;
	}

	private async interactionAnswer(interactionId: string): Promise<SessionAnswer> {
		const { data, request } = await this.fake.waitForAnswer(interactionId, STEP_TIMEOUT_MS);
		return { content: String(data.content ?? ''), data, request, interactionId };
	}

	/** The next `event` of the client whose first argument matches. */
	private waitFor<T>(event: string, matches: (first: T) => boolean, what: string): Promise<unknown[]> {
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.client.off(event, listener);
				reject(new Error(`the demo waited ${STEP_TIMEOUT_MS} ms for ${what} in vain`));
			}, STEP_TIMEOUT_MS);
			const listener = (...args: unknown[]) => {
				if (!matches(args[0] as T)) return;
				clearTimeout(timer);
				this.client.off(event, listener);
				resolve(args);
			};
			this.client.on(event, listener);
		});
	}

	private where(channelId: string): string {
		return this.names.get(channelId) ?? channelId;
	}
}
