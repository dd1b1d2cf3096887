import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationCommandRegistries, container, Listener, LogLevel, RegisterBehavior, SapphireClient } from '@sapphire/framework';
import {
	ChannelType,
	type ClientOptions,
	Events,
	GatewayIntentBits,
	type Message,
	MessageFlags,
	OverwriteType,
	Partials,
	PermissionFlagsBits
} from 'discord.js';
import { expect } from 'vitest';
import type { MemoryContext, MemoryPluginOptions, MemoryTurn, RecordTurnResult } from '../../src';
import { contextForMessage, MemoryEvents, turnFromMessages } from '../../src';
import {
	FakeDiscord,
	type FakeInteraction,
	type InteractionAnswer,
	type RecordedRequest,
	type SlashCommandInput,
	SnowflakeGenerator
} from '../../tools/fake-discord';
import { StoreInspection } from './store-inspection';

/** The members of the test guild. Carol moderates; only Alice and the moderators can view #secret. */
export const ALICE = { id: '200000000000000001', username: 'alice' };
export const BOB = { id: '200000000000000002', username: 'bob' };
export const CAROL = { id: '200000000000000003', username: 'carol' };
export const DAVE = { id: '200000000000000004', username: 'dave' };

export const GUILD_ID = '300000000000000001';
export const MODERATOR_ROLE_ID = '300000000000000009';
export const GENERAL = '300000000000000002';
export const RANDOM = '300000000000000003';
export const SECRET = '300000000000000004';
export const THREAD = '300000000000000005';
export const ALICE_DM = '400000000000000001';

/** What `startMemoryBot` gives a test file. */
export interface MemoryBot {
	fake: FakeDiscord;
	client: SapphireClient;
	/** The store the plugin writes to: an SQLite file of its own unless the test named one. */
	storeUrl: string;
	/** A second connection to the plugin's store, to look at what it holds. */
	inspect: StoreInspection;
	/** Closes the second connection, destroys the client, then closes the fake, then removes the store. */
	stop(): Promise<void>;
}

/**
 * Starts the fake Discord with the test guild and logs a real `SapphireClient` with the memory plugin
 * in to it (with `clientOptions` besides the plugin's); resolves once `/session` is registered. The caller imports `src/register` first.
 */
export async function startMemoryBot(memory: MemoryPluginOptions = {}, clientOptions: Partial<ClientOptions> = {}): Promise<MemoryBot> {
	const fake = await FakeDiscord.start({
		users: [ALICE, BOB, CAROL, DAVE],
		guilds: [
			{
				id: GUILD_ID,
				name: 'test-guild',
				roles: [{ id: MODERATOR_ROLE_ID, name: 'moderator', permissions: PermissionFlagsBits.ManageMessages, position: 2 }],
				channels: [
					{ id: GENERAL, name: 'general' },
					{ id: RANDOM, name: 'random' },
					{
						id: SECRET,
						name: 'secret',
						permissionOverwrites: [
							{ id: GUILD_ID, type: OverwriteType.Role, allow: '0', deny: String(PermissionFlagsBits.ViewChannel) },
							{ id: MODERATOR_ROLE_ID, type: OverwriteType.Role, allow: String(PermissionFlagsBits.ViewChannel), deny: '0' },
							{ id: ALICE.id, type: OverwriteType.Member, allow: String(PermissionFlagsBits.ViewChannel), deny: '0' }
						]
					},
					{ id: THREAD, name: 'plans', type: ChannelType.PublicThread, parentId: GENERAL }
				],
				members: [{ userId: ALICE.id }, { userId: BOB.id }, { userId: CAROL.id, roles: [MODERATOR_ROLE_ID] }, { userId: DAVE.id }]
			}
		],
		dmChannels: [{ id: ALICE_DM, recipientId: ALICE.id }]
	});
	const dir = mkdtempSync(join(tmpdir(), 'memory-e2e-'));
	// An SQLite file of its own, unless the test names another store.
	const storeUrl = memory.storeUrl ?? `sqlite://${join(dir, 'memory.sqlite')}`;
	ApplicationCommandRegistries.setDefaultBehaviorWhenNotIdentical(RegisterBehavior.BulkOverwrite);
	const client = new SapphireClient({
		intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
		partials: [Partials.Channel],
		rest: { api: fake.restUrl },
		baseUserDirectory: null,
		logger: { level: LogLevel.Warn },
		...clientOptions,
		memory: { ...memory, storeUrl }
	});
	const ready = once(client, Events.ClientReady);
	await client.login('fake-token');
	await ready;
	await fake.waitForCommand(memory.sessionCommandName ?? 'session', { guildId: memory.commandGuildIds?.[0] });
	await container.stores.loadPiece({ name: 'SolPersona', piece: SolPersona, store: 'listeners' });
	const inspect = await StoreInspection.open({ storeUrl, namespace: container.memory.config.storeNamespace });
	return {
		fake,
		client,
		storeUrl,
		inspect,
		async stop() {
			await inspect.close();
			await client.destroy();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		}
	};
}

export const SOL = { id: 'sol', name: 'Sol' };

/** One generation of the host's persona: the message it answered, the memory it was given, its reply. */
export interface Exchange {
	message: Message;
	context: MemoryContext;
	reply: Message;
}

/** Sol's generations, by the id of the message answered. */
export const exchanges = new Map<string, Exchange>();

/**
 * The host bot: a persona that reads memory before it answers and reports the turn after, as the
 * README shows. It answers every member message but asides, which start with `//`.
 */
class SolPersona extends Listener<typeof Events.MessageCreate> {
	public constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.MessageCreate });
	}

	public async run(message: Message): Promise<void> {
		if (message.author.bot || message.content.startsWith('//') || !message.channel.isSendable()) return;
		const context = await contextForMessage(message, { id: SOL.id });
		const fetched = await message.channel.messages.fetch({ limit: 10 });
		const sent = await message.channel.send(`noted "${message.content}"`);
		exchanges.set(message.id, { message, context, reply: sent });
		this.container.client.emit(
			MemoryEvents.TurnCompleted,
			turnFromMessages({ trigger: message, history: fetched, responses: [sent], persona: SOL })
		);
	}
}

/** Resolves with the next `memoryTurnRecorded` whose turn matches. */
export function nextTurnRecorded(
	client: SapphireClient,
	matches: (turn: MemoryTurn) => boolean,
	timeoutMs = 5000
): Promise<{ turn: MemoryTurn; result: RecordTurnResult }> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			client.off(MemoryEvents.TurnRecorded, listener);
			reject(new Error(`no matching ${MemoryEvents.TurnRecorded} within ${timeoutMs} ms`));
		}, timeoutMs);
		const listener = (turn: MemoryTurn, result: RecordTurnResult) => {
			if (!matches(turn)) return;
			clearTimeout(timer);
			client.off(MemoryEvents.TurnRecorded, listener);
			resolve({ turn, result });
		};
		client.on(MemoryEvents.TurnRecorded, listener);
	});
}

/** A member writes to Sol; resolves once Sol answered and the plugin recorded (or skipped) the turn. */
export async function converse(bot: MemoryBot, author: string, channelId: string, content: string) {
	const recorded = nextTurnRecorded(bot.client, (turn) => turn.history.some((message) => message.text === content));
	const sent = bot.fake.sendMessage({ channelId, author, content });
	const { turn, result } = await recorded;
	return { sent, turn, result, exchange: exchanges.get(String(sent.id))! };
}

/**
 * The bot's answer to an interaction as the member sees it (the reply, or the message a deferred reply was filled in
 * with), its first answer asserted ephemeral (flag 64), as every `/session` answer must be.
 */
export async function ephemeralAnswer(
	fake: FakeDiscord,
	interaction: FakeInteraction
): Promise<{ content: string; data: Record<string, unknown>; request: RecordedRequest; answer: InteractionAnswer }> {
	const answer = await fake.waitForAnswer(interaction.id);
	const first = (answer.callback.body as { data?: Record<string, unknown> }).data ?? {};
	expect(Number(first.flags ?? 0) & MessageFlags.Ephemeral, `the answer to ${interaction.id} is ephemeral`).toBe(MessageFlags.Ephemeral);
	return { content: String(answer.data.content ?? ''), data: answer.data, request: answer.request, answer };
}

/**
 * A member runs a `/session` subcommand that asks for confirmation and clicks its red button; resolves
 * with the question and the final answer (the updated message), the command, and the click's answer.
 */
export async function confirmedSession(
	fake: FakeDiscord,
	input: Omit<SlashCommandInput, 'name'> & { subcommand: string }
): Promise<{ question: string; done: string; asked: FakeInteraction; clicked: InteractionAnswer }> {
	const asked = fake.slashCommand({ name: 'session', ...input });
	const { content: question, data } = await ephemeralAnswer(fake, asked);
	const confirm = (data.components as { components: { custom_id: string }[] }[] | undefined)?.[0]?.components[0]?.custom_id;
	if (!confirm) throw new Error(`/session ${input.subcommand} asked no confirmation: ${question}`);
	const click = fake.clickButton({ customId: confirm, messageId: String(fake.originalMessage(asked.id)!.id), user: input.user });
	const clicked = await fake.waitForAnswer(click.id);
	return { question, done: String(clicked.data.content ?? ''), asked, clicked };
}

const ids = new SnowflakeGenerator();

/** Seeds memory the way the post-turn listener would: `who` says `text` in a guild channel and Sol replies. */
export function remember(who: { id: string; username: string }, channelId: string, text: string, reply = 'Sol nods.'): Promise<RecordTurnResult> {
	return container.memory.recordTurn({
		userId: who.id,
		userName: who.username,
		serverId: GUILD_ID,
		channelId,
		history: [{ role: 'user', authorId: who.id, authorName: who.username, text, messageId: ids.next(), timestamp: Date.now() }],
		responses: [{ text: reply, personaId: 'sol', personaName: 'Sol', messageId: ids.next() }]
	});
}
