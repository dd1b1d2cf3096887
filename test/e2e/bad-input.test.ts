import '../../src/register';
import { container } from '@sapphire/framework';
import { ApplicationCommandOptionType, ChannelType } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivacyLevel } from '../../src';
import type { CommandOptionsInput } from '../../tools/fake-discord';
import {
	ALICE,
	ALICE_DM,
	BOB,
	CAROL,
	ephemeralAnswer,
	GENERAL,
	GUILD_ID,
	type MemoryBot,
	RANDOM,
	remember,
	startMemoryBot
} from '../support/memory-bot';

const VOICE = '300000000000000007';
const CATEGORY = '300000000000000008';
const UNKNOWN_CHANNEL = '399999999999999999';

/** What every refusal below ends with: nothing of anyone's memory changed. */
const MALFORMED = /^Those options are not what `\/session` takes \(.+\) Nothing was changed; `\/session help` lists the commands\.$/;

describe('/session with arguments Discord’s client would not send: each gets an ephemeral explanation and changes nothing', () => {
	let bot: MemoryBot;

	beforeAll(async () => {
		bot = await startMemoryBot();
		bot.fake.addChannel(GUILD_ID, { id: VOICE, name: 'voice', type: ChannelType.GuildVoice });
		bot.fake.addChannel(GUILD_ID, { id: CATEGORY, name: 'lounge', type: ChannelType.GuildCategory });
		await remember(BOB, RANDOM, 'bob: the random channel remembers this');
		await remember(ALICE, GENERAL, 'alice: and general remembers this');
		await container.memory.saveTopic(ALICE.id, 'Garden plans', 'tomatoes');
	});

	afterAll(() => bot?.stop());

	function session(user: string, subcommand: string, options?: CommandOptionsInput, channelId = GENERAL) {
		return ephemeralAnswer(bot.fake, bot.fake.slashCommand({ name: 'session', subcommand, ...(options ? { options } : {}), user, channelId }));
	}

	/** Every memory the test guild started with is still there. */
	async function nothingChanged() {
		const random = await bot.inspect.serverEntry(GUILD_ID, RANDOM, 'sol').read();
		const general = await bot.inspect.serverEntry(GUILD_ID, GENERAL, 'sol').read();
		expect(random?.messages.map((message) => message.text)).toContain('bob: the random channel remembers this');
		expect(general?.messages.map((message) => message.text)).toContain('alice: and general remembers this');
		expect((await container.memory.listTopics(ALICE.id)).map((topic) => topic.slug)).toEqual(['garden-plans']);
		expect(await container.memory.getUserSettings(ALICE.id)).toMatchObject({ privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: false });
	}

	describe('GIVEN /session forget', () => {
		it.each([
			['101 characters', 'g'.repeat(101)],
			['4,000 characters', 'garden '.repeat(572)],
			['only spaces', '     ']
		])('WHEN the topic typed by hand is %s THEN the member is asked to pick one from the list', async (_, topic) => {
			const { content } = await session(ALICE.id, 'forget', [{ name: 'topic', type: ApplicationCommandOptionType.String, value: topic }]);

			expect(content).toBe('Name a topic from the list (start typing to see yours).');
			await nothingChanged();
		});

		it('WHEN the topic is made of characters no topic name keeps THEN the member is told there is no such topic', async () => {
			const { content } = await session(ALICE.id, 'forget', { topic: '💥🔥' });

			expect(content).toBe('You have no topic `💥🔥`. `/session profile` lists yours.');
			await nothingChanged();
		});

		it('WHEN the required topic is missing THEN the member is told the options are not what the command takes', async () => {
			const { content } = await session(ALICE.id, 'forget', []);

			expect(content).toMatch(MALFORMED);
			expect(content).toContain('"topic"');
			await nothingChanged();
		});
	});

	describe('GIVEN /session privacy', () => {
		it('WHEN the level typed by hand is 4,000 characters long THEN the answer quotes only its start', async () => {
			const { content } = await session(ALICE.id, 'privacy', [
				{ name: 'level', type: ApplicationCommandOptionType.String, value: 'x'.repeat(4000) }
			]);

			expect(content).toBe(`Unknown privacy level "${'x'.repeat(40)}". Choose minimal, partial or full.`);
			await nothingChanged();
		});

		it.each([
			['the level as a number', [{ name: 'level', type: ApplicationCommandOptionType.Integer, value: 2 }]],
			['cross_server as text', [{ name: 'cross_server', type: ApplicationCommandOptionType.String, value: 'yes' }]]
		])('WHEN %s arrives THEN the member is told the options are not what the command takes', async (_, options) => {
			const { content } = await session(ALICE.id, 'privacy', options as CommandOptionsInput);

			expect(content).toMatch(MALFORMED);
			await nothingChanged();
		});
	});

	describe('GIVEN /session clear', () => {
		it('WHEN the scope typed by hand is neither short-term nor all THEN the member is told which scopes exist', async () => {
			const { content } = await session(ALICE.id, 'clear', [
				{ name: 'scope', type: ApplicationCommandOptionType.String, value: 'everything of everyone' }
			]);

			expect(content).toBe('Unknown scope "everything of everyone". Use short-term or all.');
			await nothingChanged();
		});
	});

	describe('GIVEN /session wipe-channel from a moderator', () => {
		it(
			['WHEN the channel arrives as text instead of a channel THEN the', 'moderator is told the options are not what the command takes'].join(
				' '
			),
			async () => {
				const { content } = await session(CAROL.id, 'wipe-channel', [
					{ name: 'channel', type: ApplicationCommandOptionType.String, value: RANDOM }
				]);

				expect(content).toMatch(MALFORMED);
				await nothingChanged();
			}
		);

		it.each([
			['a voice channel', VOICE],
			['a category', CATEGORY],
			['a DM channel', ALICE_DM]
		])('WHEN the channel is %s THEN the moderator is told only text channels and threads hold memory', async (_, channelId) => {
			const { content } = await session(CAROL.id, 'wipe-channel', [
				{ name: 'channel', type: ApplicationCommandOptionType.Channel, value: channelId }
			]);

			expect(content).toBe(`Only text and announcement channels and threads hold memory; <#${channelId}> is not one, so nothing was wiped.`);
			await nothingChanged();
		});

		it('WHEN the channel is one Discord could not resolve THEN nothing is wiped, least of all the channel the moderator is in', async () => {
			const { content } = await session(CAROL.id, 'wipe-channel', [
				{ name: 'channel', type: ApplicationCommandOptionType.Channel, value: UNKNOWN_CHANNEL }
			]);

			expect(content).toBe('I cannot see that channel. Pick one from the list; nothing was wiped.');
			await nothingChanged();
		});
	});

	it('GIVEN everything above THEN the bot asked for nothing the fake does not know', () => {
		expect(bot.fake.unhandledRequests()).toEqual([]);
	});
});
