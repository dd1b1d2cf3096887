import { once } from 'node:events';
import { constants, inflateSync } from 'node:zlib';
import { ApplicationCommandRegistries, Command, container, Listener, LogLevel, RegisterBehavior, SapphireClient } from '@sapphire/framework';
import { ApplicationCommandType, Events, GatewayIntentBits, GatewayOpcodes, InteractionResponseType, MessageFlags, type Message } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FakeDiscord } from '../../tools/fake-discord';

const ALICE = { id: '200000000000000001', username: 'alice' };
const GUILD_ID = '300000000000000001';
const CHANNEL_ID = '300000000000000002';

class PingCommand extends Command {
	public override registerApplicationCommands(registry: Command.Registry) {
		registry.registerChatInputCommand((builder) => builder.setName('ping').setDescription('Replies with pong'));
	}

	public override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		await interaction.reply({ content: 'Pong!', flags: MessageFlags.Ephemeral });
	}
}

/** `/late-ping [defer]`: answers 200 ms late, or defers at once and fills the answer in 200 ms later. */
class LatePingCommand extends Command {
	public override registerApplicationCommands(registry: Command.Registry) {
		registry.registerChatInputCommand((builder) =>
			builder
				.setName('late-ping')
				.setDescription('Replies with pong, late')
				.addBooleanOption((option) => option.setName('defer').setDescription('Defer first'))
		);
	}

	public override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const defer = interaction.options.getBoolean('defer') ?? false;
		if (defer) await interaction.deferReply({ flags: MessageFlags.Ephemeral });
		await new Promise((resolve) => setTimeout(resolve, LATE_MS));
		if (defer) await interaction.editReply({ content: 'Pong, at last' });
		else await interaction.reply({ content: 'Pong, at last', flags: MessageFlags.Ephemeral });
	}
}

/** `Quote it`, on a message: answers with the message's author and text, as the interaction carries them. */
class QuoteCommand extends Command {
	public override registerApplicationCommands(registry: Command.Registry) {
		registry.registerContextMenuCommand((builder) => builder.setName('Quote it').setType(ApplicationCommandType.Message));
	}

	public override async contextMenuRun(interaction: Command.ContextMenuCommandInteraction) {
		if (!interaction.isMessageContextMenuCommand()) return;
		const { targetMessage } = interaction;
		await interaction.reply({ content: `${targetMessage.author.username} said: ${targetMessage.content}`, flags: MessageFlags.Ephemeral });
	}
}

const LATE_MS = 200;

const receivedMessages: Message[] = [];

class MessageSpy extends Listener<typeof Events.MessageCreate> {
	public constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.MessageCreate });
	}

	public run(message: Message) {
		receivedMessages.push(message);
	}
}

describe('FakeDiscord with a real SapphireClient', () => {
	let fake: FakeDiscord;
	let client: SapphireClient;

	beforeAll(async () => {
		ApplicationCommandRegistries.setDefaultBehaviorWhenNotIdentical(RegisterBehavior.BulkOverwrite);
		fake = await FakeDiscord.start({
			users: [ALICE],
			guilds: [{ id: GUILD_ID, channels: [{ id: CHANNEL_ID, name: 'general' }], members: [{ userId: ALICE.id }] }]
		});
		client = new SapphireClient({
			intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
			rest: { api: fake.restUrl },
			baseUserDirectory: null,
			logger: { level: LogLevel.Warn }
		});
		await container.stores.loadPiece({ name: 'ping', piece: PingCommand, store: 'commands' });
		await container.stores.loadPiece({ name: 'late-ping', piece: LatePingCommand, store: 'commands' });
		await container.stores.loadPiece({ name: 'message-spy', piece: MessageSpy, store: 'listeners' });
		await container.stores.loadPiece({ name: 'quote-it', piece: QuoteCommand, store: 'commands' });
		const ready = once(client, Events.ClientReady);
		await client.login('fake-token');
		await ready;
		await fake.waitForCommand('ping');
		await fake.waitForCommand('late-ping');
		await fake.waitForCommand('Quote it', { type: ApplicationCommandType.Message });
	});

	afterAll(async () => {
		await client?.destroy();
		await fake?.close();
	});

	it('GIVEN /ping THEN the bot answers with an ephemeral "Pong!" reply', async () => {
		const { id } = fake.slashCommand({ name: 'ping', user: ALICE.id, channelId: CHANNEL_ID });

		const response = await fake.waitForInteractionResponse(id);

		expect(response.body).toEqual({
			type: InteractionResponseType.ChannelMessageWithSource,
			data: expect.objectContaining({ content: 'Pong!', flags: MessageFlags.Ephemeral })
		});
		expect(fake.originalMessage(id)).toMatchObject({ content: 'Pong!', flags: MessageFlags.Ephemeral });
	});

	it('GIVEN a command that answers 200 ms late THEN waitForAnswer times its callback from the dispatch', async () => {
		const { id } = fake.slashCommand({ name: 'late-ping', user: ALICE.id, channelId: CHANNEL_ID });

		const { callback, callbackAfterMs, request, data } = await fake.waitForAnswer(id);

		expect(callbackAfterMs).toBeGreaterThanOrEqual(LATE_MS);
		expect(request).toBe(callback);
		expect(data).toMatchObject({ content: 'Pong, at last', flags: MessageFlags.Ephemeral });
	});

	it('GIVEN a command that defers THEN waitForAnswer gives the deferral as the callback and the edit of @original as the answer', async () => {
		const { id } = fake.slashCommand({ name: 'late-ping', options: { defer: true }, user: ALICE.id, channelId: CHANNEL_ID });

		const { callback, request, data } = await fake.waitForAnswer(id);

		expect(callback.body).toEqual({ type: InteractionResponseType.DeferredChannelMessageWithSource, data: { flags: MessageFlags.Ephemeral } });
		// The deferral came first, the answer after the work (less a millisecond: Date.now() rounds).
		expect(request.at).toBeGreaterThanOrEqual(callback.at + LATE_MS - 1);
		expect(request).toMatchObject({ method: 'PATCH', path: expect.stringMatching(/\/messages\/@original$/) });
		expect(data).toMatchObject({ content: 'Pong, at last' });
		expect(fake.originalMessage(id)).toMatchObject({ content: 'Pong, at last', flags: MessageFlags.Ephemeral });
	});

	it('GIVEN a member writes in a channel THEN a messageCreate listener receives it AND the channel history holds it', async () => {
		const sent = fake.sendMessage({ channelId: CHANNEL_ID, author: ALICE.id, content: 'hello there' });

		await expect.poll(() => receivedMessages.map((message) => message.id)).toContain(sent.id);
		const received = receivedMessages.find((message) => message.id === sent.id)!;
		expect(received.content).toBe('hello there');
		expect(received.author.id).toBe(ALICE.id);
		expect(received.guildId).toBe(GUILD_ID);

		const channel = await client.channels.fetch(CHANNEL_ID);
		const history = channel?.isTextBased() ? await channel.messages.fetch({ limit: 10, cache: false }) : undefined;
		expect(history?.map((message) => message.content)).toEqual(['hello there']);
	});

	it('GIVEN a message command on a member’s message THEN the bot gets that message as the target and answers', async () => {
		const sent = fake.sendMessage({ channelId: CHANNEL_ID, author: ALICE, content: 'the tide turns at six' });
		const { id, payload } = fake.messageCommand({ name: 'Quote it', user: ALICE.id, messageId: String(sent.id) });
		expect(payload.data).toMatchObject({ type: ApplicationCommandType.Message, target_id: String(sent.id) });
		const { data } = await fake.waitForAnswer(id);
		expect(data).toMatchObject({ content: 'alice said: the tide turns at six', flags: MessageFlags.Ephemeral });
		expect(() => fake.messageCommand({ name: 'Quote it', user: ALICE.id, messageId: '399999999999999999' })).toThrow(/unknown message/);
	});

	it('GIVEN everything above THEN the bot asked for nothing the fake does not know', () => {
		expect(fake.unhandledRequests()).toEqual([]);
	});

	it('GIVEN a client asking for compress=zlib-stream THEN gateway frames are one sync-flushed zlib stream', async () => {
		const socket = new WebSocket(`${fake.gatewayUrl}?v=10&encoding=json&compress=zlib-stream`);
		const frames: Buffer[] = [];
		socket.on('message', (data) => frames.push(data as Buffer));
		await once(socket, 'open');
		await expect.poll(() => frames.length).toBe(1);
		socket.send(JSON.stringify({ op: GatewayOpcodes.Heartbeat, d: null }));
		await expect.poll(() => frames.length).toBe(2);
		socket.close();

		const text = inflateSync(Buffer.concat(frames), { finishFlush: constants.Z_SYNC_FLUSH }).toString();
		expect(text).toBe(`{"op":${GatewayOpcodes.Hello},"d":{"heartbeat_interval":41250}}{"op":${GatewayOpcodes.HeartbeatAck}}`);
	});
});
