import '../../src/register';
import { setTimeout as sleep } from 'node:timers/promises';
import { container } from '@sapphire/framework';
import { InteractionResponseType, PermissionFlagsBits } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryEngine, MemoryEvents, type MemoryErrorContext, PrivacyLevel } from '../../src';
import {
	confirmedSession,
	ALICE,
	BOB,
	CAROL,
	converse,
	DAVE,
	ephemeralAnswer,
	GENERAL,
	GUILD_ID,
	type MemoryBot,
	RANDOM,
	remember,
	startMemoryBot
} from '../support/memory-bot';

/** The host's own privacy settings: Dave opted out everywhere in the host's dashboard; Bob is known to it as minimal. */
const hostLevels = new Map<string, PrivacyLevel>([
	[DAVE.id, PrivacyLevel.FULL],
	[BOB.id, PrivacyLevel.MINIMAL]
]);

describe('a host that sets memory options on its client', () => {
	let bot: MemoryBot;

	beforeAll(async () => {
		bot = await startMemoryBot({
			resolvePrivacyLevel: (userId) => hostLevels.get(userId),
			confirmationTimeoutMs: 100,
			commandGuildIds: [GUILD_ID],
			moderatorPermission: PermissionFlagsBits.ManageGuild,
			defaultErrorListener: false
		});
	});

	afterAll(() => bot?.stop());

	describe('GIVEN resolvePrivacyLevel', () => {
		it('WHEN the host says Dave is FULL THEN his turn is skipped though he never chose a level with /session', async () => {
			expect((await container.memory.getUserSettings(DAVE.id)).privacyLevel).toBe(PrivacyLevel.MINIMAL);

			const { result } = await converse(bot, DAVE.id, RANDOM, 'dave: keep me out of this');

			expect(result).toEqual({ written: false, skippedReason: 'privacy-full', keys: [] });
			expect(await bot.inspect.keysHolding('keep me out of this')).toEqual([]);
		});

		it('WHEN Carol, whom the host does not know, chose full with /session privacy THEN her stored level is used', async () => {
			await confirmedSession(bot.fake, { subcommand: 'privacy', options: { level: 'full' }, user: CAROL.id, channelId: GENERAL });

			const { result } = await converse(bot, CAROL.id, GENERAL, 'carol: nothing to see');

			expect(result.skippedReason).toBe('privacy-full');
		});

		it(
			'WHEN Eve, whom the host marks FULL but who never spoke to Sol, chats in a channel before Alice’s turn ' +
				'THEN her message is not stored with it',
			async () => {
				const eve = { id: '200000000000000005', username: 'eve' };
				hostLevels.set(eve.id, PrivacyLevel.FULL);
				bot.fake.sendMessage({ channelId: GENERAL, author: eve, content: '// eve: my address is 12 Elm Street' });

				const { turn, result } = await converse(bot, ALICE.id, GENERAL, 'alice: hello Sol');

				expect(turn.history.some((message) => message.authorId === eve.id)).toBe(true);
				expect(result.written).toBe(true);
				expect((await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read())?.messages.map((message) => message.text)).toContain(
					'alice: hello Sol'
				);
				expect(await bot.inspect.keysHolding('12 Elm Street')).toEqual([]);
			}
		);
	});

	describe('GIVEN resolvePrivacyLevel and /session', () => {
		it('WHEN Frank, whom the host marks FULL, asks /session status before he ever spoke THEN he sees the level in force: full', async () => {
			const frank = { id: '200000000000000006', username: 'frank' };
			hostLevels.set(frank.id, PrivacyLevel.FULL);

			const { content } = await ephemeralAnswer(
				bot.fake,
				bot.fake.slashCommand({ name: 'session', subcommand: 'status', user: frank, channelId: GENERAL })
			);

			expect(content).toContain('Privacy level: **full**');
		});

		it(
			'WHEN Bob, whom the host marks MINIMAL, picks level:full ' +
				'THEN he is told the bot decides, and nothing he was promised changes behind his back',
			async () => {
				const { content } = await ephemeralAnswer(
					bot.fake,
					bot.fake.slashCommand({ name: 'session', subcommand: 'privacy', options: { level: 'full' }, user: BOB.id, channelId: GENERAL })
				);

				expect(content).toBe(
					'This bot sets your privacy level itself: it is **minimal**: conversations are remembered, ' +
						'and so are a profile and topic notes about you. Nothing was changed; ask the bot’s owners how to change it.'
				);
				expect((await container.memory.getUserSettings(BOB.id)).privacyLevel).toBe(PrivacyLevel.MINIMAL);
			}
		);

		it('WHEN Bob only turns cross_server on THEN that is his to choose', async () => {
			const { content } = await ephemeralAnswer(
				bot.fake,
				bot.fake.slashCommand({ name: 'session', subcommand: 'privacy', options: { cross_server: true }, user: BOB.id, channelId: GENERAL })
			);

			expect(content).toContain('Cross-server memory: **on**');
			expect(await container.memory.getUserSettings(BOB.id)).toMatchObject({ privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: true });
		});
	});

	describe('GIVEN commandGuildIds', () => {
		it('THEN /session and its message commands are registered in that guild only', () => {
			expect(bot.fake.commands(GUILD_ID).map((command) => command.name)).toEqual([
				'session',
				'Forget this message',
				'Remember this',
				'What did you remember?'
			]);
			expect(bot.fake.commands().map((command) => command.name)).toEqual([]);
		});
	});

	describe('GIVEN moderatorPermission: ManageGuild', () => {
		it('WHEN Carol, who has Manage Messages but not Manage Server, wipes a channel THEN she is refused and the memory stays', async () => {
			await remember(BOB, RANDOM, 'bob: the wipe must not take this');

			const { content } = await ephemeralAnswer(
				bot.fake,
				bot.fake.slashCommand({ name: 'session', subcommand: 'wipe-channel', user: CAROL.id, channelId: RANDOM })
			);

			expect(content).toBe('Only moderators (ManageGuild) can wipe a channel’s memory.');
			expect(await bot.inspect.keysHolding('the wipe must not take this')).not.toEqual([]);
		});
	});

	describe('GIVEN confirmationTimeoutMs: 100', () => {
		it('WHEN Bob confirms /session clear scope:all after the buttons expired THEN nothing is deleted and he is told to ask again', async () => {
			await remember(BOB, GENERAL, 'bob: keep this until I really confirm');
			const asked = bot.fake.slashCommand({
				name: 'session',
				subcommand: 'clear',
				options: { scope: 'all' },
				user: BOB.id,
				channelId: GENERAL
			});
			const { data } = await ephemeralAnswer(bot.fake, asked);
			const confirm = (data.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;

			await sleep(150);
			const click = bot.fake.clickButton({ customId: confirm, messageId: String(bot.fake.originalMessage(asked.id)!.id), user: BOB.id });
			const response = await bot.fake.waitForInteractionResponse(click.id);

			expect(response.body).toEqual({
				type: InteractionResponseType.UpdateMessage,
				data: expect.objectContaining({
					content: 'This confirmation expired: nothing was deleted or changed. Run `/session clear scope:all` again.',
					components: []
				})
			});
			expect(await bot.inspect.keysHolding('keep this until I really confirm')).not.toEqual([]);
		});
	});

	describe('GIVEN defaultErrorListener: false', () => {
		let healthy: MemoryEngine;

		beforeAll(async () => {
			healthy = container.memory;
			const closed = await MemoryEngine.open({ storeUrl: 'sqlite://:memory:', env: {} });
			await closed.close();
			container.memory = closed;
		});

		afterAll(() => {
			container.memory = healthy;
		});

		it('WHEN memory fails during /session status THEN the member is told, memoryError is emitted, and nothing is logged', async () => {
			const errors: MemoryErrorContext[] = [];
			const onError = (_error: unknown, context: MemoryErrorContext) => errors.push(context);
			bot.client.on(MemoryEvents.Error, onError);
			const logged = vi.spyOn(container.logger, 'error');
			try {
				const { content } = await ephemeralAnswer(
					bot.fake,
					bot.fake.slashCommand({ name: 'session', subcommand: 'status', user: BOB.id, channelId: GENERAL })
				);

				expect(content).toBe('Memory is unavailable right now; nothing was changed. Try again in a moment.');
				expect(errors).toEqual([{ phase: 'command', userId: BOB.id, channelId: GENERAL }]);
				expect(logged).not.toHaveBeenCalled();
			} finally {
				bot.client.off(MemoryEvents.Error, onError);
				logged.mockRestore();
			}
		});
	});

	it('GIVEN everything above THEN the bot asked for nothing the fake does not know', () => {
		expect(bot.fake.unhandledRequests()).toEqual([]);
	});

	it('WHEN the client is destroyed THEN the memory engine is closed with it', async () => {
		const { memory } = container;

		await bot.client.destroy();

		await expect(memory.getUserSettings(ALICE.id)).rejects.toMatchObject({ code: 'CLOSED' });
	});
});
