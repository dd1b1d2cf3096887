import '../../src/register';
import { once } from 'node:events';
import { container, Listener, LogLevel, SapphireClient } from '@sapphire/framework';
import { Events, GatewayIntentBits, type Message } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { contextForMessage, type MemoryContext, type MemoryErrorContext, MemoryEvents, turnFromMessages } from '../../src';
import { FakeDiscord } from '../../tools/fake-discord';
import { ALICE, GENERAL, GUILD_ID, nextTurnRecorded, SOL } from '../support/memory-bot';
import { privateRedis, type PrivateServer } from '../support/private-servers';

/** The memory each of Sol's replies was given, by the text it answered. */
const contexts = new Map<string, MemoryContext>();

/** The host's persona: memory before it answers, the turn after, as the README shows. */
class Persona extends Listener<typeof Events.MessageCreate> {
	public constructor(context: Listener.LoaderContext, options: Listener.Options) {
		super(context, { ...options, event: Events.MessageCreate });
	}

	public async run(message: Message): Promise<void> {
		if (message.author.bot || !message.channel.isSendable()) return;
		const context = await contextForMessage(message, { id: SOL.id });
		const history = await message.channel.messages.fetch({ limit: 10 });
		const reply = await message.channel.send(`noted "${message.content}"`);
		contexts.set(message.content, context);
		this.container.client.emit(MemoryEvents.TurnCompleted, turnFromMessages({ trigger: message, history, responses: [reply], persona: SOL }));
	}
}

describe('GIVEN a bot started with MEMORY_START_WITHOUT_STORE while its Redis is down', () => {
	let server: PrivateServer;
	let fake: FakeDiscord;
	let client: SapphireClient;
	const errors: { error: unknown; context: MemoryErrorContext }[] = [];
	let recoveries = 0;
	let warnings: MockInstance;

	beforeAll(async () => {
		server = await privateRedis();
		if (server.skipReason) return;
		fake = await FakeDiscord.start({
			users: [ALICE],
			guilds: [{ id: GUILD_ID, name: 'test-guild', channels: [{ id: GENERAL, name: 'general' }], members: [{ userId: ALICE.id }] }]
		});
		client = new SapphireClient({
			intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
			rest: { api: fake.restUrl },
			baseUserDirectory: null,
			logger: { level: LogLevel.Fatal },
			memory: { storeUrl: server.url, config: { startWithoutStore: true, sweepIntervalMinutes: 0, storeTimeoutMs: 500 } }
		});
		client.on(MemoryEvents.Error, (error, context) => errors.push({ error, context }));
		warnings = vi.spyOn(container.logger, 'warn');
		client.on(MemoryEvents.StoreRecovered, () => recoveries++);
		const ready = once(client, Events.ClientReady);
		await client.login('fake-token');
		await ready;
		await container.stores.loadPiece({ name: 'Persona', piece: Persona, store: 'listeners' });
	}, 30_000);

	afterAll(async () => {
		await client?.destroy();
		await fake?.close();
		await server?.dispose();
	});

	async function say(content: string) {
		fake.sendMessage({ channelId: GENERAL, author: ALICE.id, content });
		await vi.waitFor(() => expect(contexts.get(content)).toBeDefined(), { timeout: 10_000, interval: 20 });
		return contexts.get(content)!;
	}

	it('THEN it logs in and registers /session, replies go on without memory, and the outage is reported once', async ({ skip }) => {
		if (server.skipReason) return skip(server.skipReason);
		await fake.waitForCommand('session');
		expect((await say('my cat is called Miso')).text).toBe('');
		expect((await say('and my dog is Pico')).text).toBe('');
		expect(errors).toHaveLength(1);
		expect(errors[0]!.context).toEqual({ phase: 'store' });
		expect(errors[0]!.error).toMatchObject({
			code: 'STORE_UNAVAILABLE',
			message: expect.stringContaining(`Cannot reach memory store ${server.url}`)
		});
		expect(container.memory.stats().store).toMatchObject({ available: false });
		// The plugin's error listener loads after the engine opens: the start is logged by the plugin itself, once.
		const said = warnings.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('Memory is off until the store answers'));
		expect(said).toEqual([expect.stringMatching(/^\[memory\] Cannot reach memory store .*\(MEMORY_START_WITHOUT_STORE\)\.$/)]);
	});

	it('WHEN the store starts THEN memory comes on by itself: the recovery is reported and the next turns are remembered', async ({ skip }) => {
		if (server.skipReason) return skip(server.skipReason);
		await server.start();
		await vi.waitFor(() => expect(recoveries).toBe(1), { timeout: 20_000, interval: 100 });
		// The gate opens once the start-up checks have run, a moment after the store answers.
		await vi.waitFor(() => container.memory.status(ALICE.id), { timeout: 5000, interval: 50 });

		const recorded = nextTurnRecorded(client, (turn) => turn.history.some((message) => message.text === 'I live in Porto'));
		await say('I live in Porto');
		expect((await recorded).result.written).toBe(true);
		expect((await say('where do I live?')).text).toContain('I live in Porto');
		expect(errors).toHaveLength(1);
	}, 30_000);
});
