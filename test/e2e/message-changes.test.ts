import '../../src/register';
import { container } from '@sapphire/framework';
import { GatewayDispatchEvents } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryEvents, type MemoryErrorContext } from '../../src';
import { ChatEndpoint } from '../support/chat-endpoint';
import { ALICE, ALICE_DM, converse, GENERAL, GUILD_ID, type MemoryBot, startMemoryBot } from '../support/memory-bot';

describe('edits and deletions on Discord: background summaries citing them stop serving', () => {
	let endpoint: ChatEndpoint;
	let bot: MemoryBot;
	const live = () => bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read();
	/** Alice's messages in #general, then her DM: discord.js only reports deletions of messages it has cached. */
	const sent: string[] = [];

	beforeAll(async () => {
		endpoint = await ChatEndpoint.start();
		bot = await startMemoryBot({ config: { llmBaseUrl: endpoint.baseUrl, maxMessagesPerChannel: 2, llmMinNewDigestLines: 4 } });
		for (const day of [3, 4, 5, 6])
			sent.push(String((await converse(bot, ALICE.id, GENERAL, `We ship ${day * 10} boxes to Porto on June ${day}.`)).sent.id));
		sent.push(String((await converse(bot, ALICE.id, ALICE_DM, 'Remind me on Friday at 5pm.')).sent.id));
		await container.memory.summarizerIdle();
	});

	afterAll(async () => {
		await bot?.stop();
		await endpoint?.stop();
	});

	it('GIVEN a conversation THEN the plugin summarized it in the background', async () => {
		expect(endpoint.requests.length).toBeGreaterThanOrEqual(1);
		expect((await live())?.backgroundSummary).toMatchObject({ stale: false });
	});

	it('WHEN a cited message is edited THEN its summary goes stale', async () => {
		const entry = (await live())!;
		const cited = entry.backgroundSummary!.sourceIds[0]!;
		const edited = vi.spyOn(container.memory, 'messagesChanged');
		endpoint.script(() => ({ status: 503, body: 'down' }));
		bot.fake.dispatch(GatewayDispatchEvents.MessageUpdate, {
			id: cited,
			channel_id: GENERAL,
			guild_id: GUILD_ID,
			content: 'We ship 999 boxes to Lisbon instead.',
			edited_timestamp: new Date().toISOString()
		});
		await vi.waitFor(() => expect(edited).toHaveBeenCalledWith({ serverId: GUILD_ID, channelId: GENERAL, messageIds: [cited], kind: 'edited' }));
		await vi.waitFor(async () => expect((await live())!.backgroundSummary!.stale).toBe(true));
		edited.mockRestore();
	});

	it('WHEN messages are deleted, one or in bulk THEN the plugin tells the engine', async () => {
		const changed = vi.spyOn(container.memory, 'messagesChanged');
		bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: sent[1], channel_id: GENERAL, guild_id: GUILD_ID });
		bot.fake.dispatch(GatewayDispatchEvents.MessageDeleteBulk, { ids: [sent[2], sent[3]], channel_id: GENERAL, guild_id: GUILD_ID });
		bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: sent[4], channel_id: ALICE_DM });
		await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(3));
		expect(changed.mock.calls.map(([change]) => change)).toEqual([
			{ serverId: GUILD_ID, channelId: GENERAL, messageIds: [sent[1]], kind: 'deleted' },
			{ serverId: GUILD_ID, channelId: GENERAL, messageIds: [sent[2], sent[3]], kind: 'deleted' },
			{ serverId: null, channelId: ALICE_DM, userId: ALICE.id, messageIds: [sent[4]], kind: 'deleted' }
		]);
		changed.mockRestore();
	});

	it('WHEN the engine fails THEN the failure is reported as memoryError, never thrown', async () => {
		const failing = vi.spyOn(container.memory, 'messagesChanged').mockRejectedValueOnce(new Error('store down'));
		const reported = new Promise<[unknown, MemoryErrorContext]>((resolve) =>
			bot.client.once(MemoryEvents.Error, (error, context) => resolve([error, context]))
		);
		bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: sent[0], channel_id: GENERAL, guild_id: GUILD_ID });
		const [error, context] = await reported;
		expect((error as Error).message).toBe('store down');
		expect(context).toMatchObject({ phase: 'message-change', channelId: GENERAL });
		failing.mockRestore();
	});
});
