import '../../src/register';
import { gunzipSync } from 'node:zlib';
import { container } from '@sapphire/framework';
import { GatewayDispatchEvents, type TextChannel } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryEvents, type MemoryErrorContext, type MessagesChangeResult } from '../../src';
import { ChatEndpoint } from '../support/chat-endpoint';
import {
	ALICE,
	ALICE_DM,
	BOB,
	converse,
	DAVE,
	ephemeralAnswer,
	GENERAL,
	GUILD_ID,
	type MemoryBot,
	RANDOM,
	startMemoryBot
} from '../support/memory-bot';
import { logEmptied } from '../support/engine';
import { holdersOf } from '../support/store-inspection';

/**
 * Edits and deletions as Discord sends them: the plugin reads the gateway's packets, so a message is
 * forgotten whether or not discord.js still caches it. Sol's replies repeat each message (`noted "…"`),
 * and Sol's history is fetched from the channel, where the fake keeps deleted messages: both must not
 * bring a deleted message back.
 */
describe('edits and deletions on Discord: every copy follows', () => {
	let endpoint: ChatEndpoint;
	let bot: MemoryBot;
	const store = () => ({ storeUrl: bot.storeUrl, namespace: container.memory.config.storeNamespace });

	/** Resolves with what the engine did for the next change the plugin forwards. */
	async function nextChange(dispatch: () => void): Promise<MessagesChangeResult> {
		const changed = vi.spyOn(container.memory, 'messagesChanged');
		try {
			dispatch();
			await vi.waitFor(() => expect(changed).toHaveBeenCalled());
			return await (changed.mock.results[0]!.value as Promise<MessagesChangeResult>);
		} finally {
			changed.mockRestore();
		}
	}

	/** The member's `/session export`, gunzipped as they would; a non-empty JSON text, or the test would prove nothing. */
	async function exportOf(userId: string): Promise<string> {
		const interaction = bot.fake.slashCommand({ name: 'session', subcommand: 'export', user: userId, channelId: GENERAL });
		const { request } = await ephemeralAnswer(bot.fake, interaction);
		const text = gunzipSync(request.files[0]!.data).toString('utf8');
		expect(JSON.parse(text)).toMatchObject({ userId });
		return text;
	}

	beforeAll(async () => {
		endpoint = await ChatEndpoint.start();
		bot = await startMemoryBot({
			config: { llmBaseUrl: endpoint.baseUrl, maxMessagesPerChannel: 2, llmMinNewDigestLines: 4, forgetMembersWhoLeave: true }
		});
	});

	afterAll(async () => {
		await bot?.stop();
		await endpoint?.stop();
	});

	it('WHEN a cached message is deleted THEN other members, exports and the raw store no longer hold it, nor the reply repeating it', async () => {
		const { sent } = await converse(bot, ALICE.id, GENERAL, 'my number is 0912-PHONE-44 call me');
		for (const day of [3, 4, 5]) await converse(bot, BOB.id, GENERAL, `We ship ${day * 10} boxes to Porto on June ${day}.`);
		await container.memory.summarizerIdle();
		expect(await holdersOf(store(), 'PHONE-44')).not.toEqual([]);

		const result = await nextChange(() =>
			bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: sent.id, channel_id: GENERAL, guild_id: GUILD_ID })
		);
		// Alice's message and Sol's reply, in the archive.
		expect(result.archivedMessagesRemoved).toBe(2);

		// Sol's next history still carries the message (the fake keeps it): it is not captured again.
		const { exchange } = await converse(bot, BOB.id, GENERAL, 'what is the phone number Alice gave?');
		expect(exchange.context.text).not.toContain('PHONE-44');
		expect(await exportOf(ALICE.id)).not.toContain('PHONE-44');
		await logEmptied(container.memory);
		expect(await holdersOf(store(), 'PHONE-44')).toEqual([]);
	});

	it('WHEN messages no longer cached are deleted, one by one and in bulk THEN each leaves memory', async () => {
		const first = (await converse(bot, ALICE.id, RANDOM, 'the gate code is GATE-7781')).sent;
		const second = (await converse(bot, ALICE.id, RANDOM, 'the alarm code is ALARM-3390')).sent;
		const third = (await converse(bot, BOB.id, RANDOM, 'the safe code is SAFE-1209')).sent;
		const channel = bot.client.channels.cache.get(RANDOM) as TextChannel;
		// As after a restart: discord.js knows none of them.
		channel.messages.cache.clear();

		await nextChange(() => bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: first.id, channel_id: RANDOM, guild_id: GUILD_ID }));
		await nextChange(() =>
			bot.fake.dispatch(GatewayDispatchEvents.MessageDeleteBulk, { ids: [second.id, third.id], channel_id: RANDOM, guild_id: GUILD_ID })
		);
		const { exchange } = await converse(bot, BOB.id, RANDOM, 'remind me of the gate, alarm and safe codes');
		expect(exchange.context.text).not.toMatch(/GATE-7781|ALARM-3390|SAFE-1209/);
		await logEmptied(container.memory);
		for (const code of ['GATE-7781', 'ALARM-3390', 'SAFE-1209']) expect(await holdersOf(store(), code), code).toEqual([]);
	});

	it.each([
		['cached', false],
		['not cached', true]
	])('WHEN a %s message is edited THEN only its new text is kept', async (_, uncached) => {
		const marker = uncached ? 'OLDPLACE-B' : 'OLDPLACE-A';
		const { sent } = await converse(bot, ALICE.id, GENERAL, `we meet at ${marker} on Friday`);
		if (uncached) (bot.client.channels.cache.get(GENERAL) as TextChannel).messages.cache.clear();
		const result = await nextChange(() =>
			bot.fake.dispatch(GatewayDispatchEvents.MessageUpdate, {
				id: sent.id,
				channel_id: GENERAL,
				guild_id: GUILD_ID,
				author: { id: ALICE.id, username: ALICE.username },
				content: `we meet at NEWPLACE-${uncached ? 'B' : 'A'} on Friday`,
				edited_timestamp: new Date().toISOString()
			})
		);
		expect(result.archivedMessagesEdited).toBe(1);
		const { exchange } = await converse(bot, BOB.id, GENERAL, 'where do we meet on Friday? NEWPLACE');
		expect(exchange.context.text).toContain(`NEWPLACE-${uncached ? 'B' : 'A'}`);
		// Sol's reply to the old text still quotes it: a reply is the persona's own message, kept on an edit.
		expect(exchange.context.text.replace(/noted "[^"]*"/g, '')).not.toContain(marker);
	});

	it('WHEN an update changes no text (an embed loading, a pin) THEN the engine is not called', async () => {
		const { sent } = await converse(bot, ALICE.id, GENERAL, 'look at https://example.com/boxes');
		const changed = vi.spyOn(container.memory, 'messagesChanged');
		bot.fake.dispatch(GatewayDispatchEvents.MessageUpdate, { id: sent.id, channel_id: GENERAL, guild_id: GUILD_ID, embeds: [] });
		bot.fake.dispatch(GatewayDispatchEvents.MessageUpdate, {
			id: sent.id,
			channel_id: GENERAL,
			guild_id: GUILD_ID,
			pinned: true,
			edited_timestamp: null
		});
		// A later packet that the plugin does forward shows the earlier ones were handled and skipped.
		bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: '1', channel_id: GENERAL, guild_id: GUILD_ID });
		await vi.waitFor(() => expect(changed).toHaveBeenCalled());
		expect(changed.mock.calls.map(([change]) => change.kind)).toEqual(['deleted']);
		changed.mockRestore();
	});

	it('WHEN a DM message is deleted THEN the DM forgets it', async () => {
		const { sent } = await converse(bot, ALICE.id, ALICE_DM, 'my locker is LOCKER-5521');
		const result = await nextChange(() => bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: sent.id, channel_id: ALICE_DM }));
		expect(result.messagesRemoved).toBeGreaterThanOrEqual(1);
		const { exchange } = await converse(bot, ALICE.id, ALICE_DM, 'what is my locker?');
		expect(exchange.context.text).not.toContain('LOCKER-5521');
		await logEmptied(container.memory);
		expect(await holdersOf(store(), 'LOCKER-5521')).toEqual([]);
	});

	it('WHEN a member leaves the server THEN what memory holds of them there is erased, from every row, and others are kept', async () => {
		await converse(bot, DAVE.id, RANDOM, 'DAVE-LEAVING my bike lock is 4471');
		await converse(bot, BOB.id, RANDOM, 'BOB-STAYS the meeting moved to Tuesday');
		expect(await holdersOf(store(), 'DAVE-LEAVING')).not.toEqual([]);
		const left = vi.spyOn(container.memory, 'memberLeft');
		bot.fake.dispatch(GatewayDispatchEvents.GuildMemberRemove, { guild_id: GUILD_ID, user: { id: DAVE.id, username: DAVE.username } });
		await vi.waitFor(() => expect(left).toHaveBeenCalledWith(GUILD_ID, DAVE.id));
		const erased = await (left.mock.results[0]!.value as ReturnType<typeof container.memory.memberLeft>);
		left.mockRestore();
		expect(erased?.entriesDeleted).toBeGreaterThanOrEqual(1);
		expect(await holdersOf(store(), 'DAVE-LEAVING')).toEqual([]);
		// Sol's next history in the channel still carries Dave's message: it is not stored again.
		const { exchange } = await converse(bot, BOB.id, RANDOM, 'what was the bike lock code? and the meeting?');
		expect(exchange.context.text).toContain('BOB-STAYS');
		expect(exchange.context.text).not.toContain('DAVE-LEAVING');
		expect(await holdersOf(store(), 'DAVE-LEAVING')).toEqual([]);
	});

	it('WHEN Discord says the server is unavailable (an outage) THEN nothing of it is erased', async () => {
		const removed = vi.spyOn(container.memory, 'serverRemoved');
		const unavailable = new Promise((resolve) => bot.client.once('guildUnavailable', resolve));
		bot.fake.dispatch(GatewayDispatchEvents.GuildDelete, { id: GUILD_ID, unavailable: true });
		await unavailable;
		// The next packet is handled after it: a deletion the plugin does forward.
		await nextChange(() => bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: '3', channel_id: GENERAL, guild_id: GUILD_ID }));
		expect(removed).not.toHaveBeenCalled();
		expect(await holdersOf(store(), GUILD_ID)).not.toEqual([]);
		removed.mockRestore();
	});

	it('WHEN the bot is removed from the server THEN everything of it is erased, from every row and file, and the DM stays', async () => {
		// Back from the outage first, then removed for good.
		bot.fake.dispatch(GatewayDispatchEvents.GuildCreate, { ...bot.fake.state.guildCreatePayload(GUILD_ID) });
		await new Promise((resolve) => bot.client.once('guildAvailable', resolve));
		const removed = vi.spyOn(container.memory, 'serverRemoved');
		bot.fake.dispatch(GatewayDispatchEvents.GuildDelete, { id: GUILD_ID });
		await vi.waitFor(() => expect(removed).toHaveBeenCalledWith(GUILD_ID));
		const result = await (removed.mock.results[0]!.value as ReturnType<typeof container.memory.serverRemoved>);
		expect(result.purged?.channels).toBeGreaterThanOrEqual(2);
		expect(await holdersOf(store(), GUILD_ID)).toEqual([]);
		expect(await holdersOf(store(), 'We ship 30 boxes')).toEqual([]);
		const dm = await converse(bot, ALICE.id, ALICE_DM, 'still talking in the DM');
		expect(dm.result.written).toBe(true);
		removed.mockRestore();
	});

	it('WHEN the engine fails THEN the failure is reported as memoryError, never thrown', async () => {
		const failing = vi.spyOn(container.memory, 'messagesChanged').mockRejectedValueOnce(new Error('store down'));
		const reported = new Promise<[unknown, MemoryErrorContext]>((resolve) =>
			bot.client.once(MemoryEvents.Error, (error, context) => resolve([error, context]))
		);
		bot.fake.dispatch(GatewayDispatchEvents.MessageDelete, { id: '2', channel_id: GENERAL, guild_id: GUILD_ID });
		const [error, context] = await reported;
		expect((error as Error).message).toBe('store down');
		expect(context).toMatchObject({ phase: 'message-change', channelId: GENERAL });
		failing.mockRestore();
	});
});
