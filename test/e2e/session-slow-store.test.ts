import '../../src/register';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { container } from '@sapphire/framework';
import { InteractionResponseType } from 'discord.js';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserExport } from '../../src';
import { SqliteAdapter } from '../../src/engine/store/SqliteAdapter';
import type { CommandOptionsInput, FakeInteraction, InteractionAnswer } from '../../tools/fake-discord';
import { slowStore, type SlowStoreControl } from '../../tools/slow-store/SlowStore';
import {
	ALICE,
	BOB,
	CAROL,
	exchanges,
	GENERAL,
	GUILD_ID,
	type MemoryBot,
	nextTurnRecorded,
	RANDOM,
	SECRET,
	startMemoryBot,
	THREAD
} from '../support/memory-bot';

/** Discord's limit for an interaction's first answer. */
const DISCORD_LIMIT_MS = 3000;
/** How long a test waits for the final answer: the work itself may take many seconds on a far store. */
const FINAL_ANSWER_MS = 120_000;
/** Each member's turns, over 12 channels of 3 servers. */
const TURNS = 600;

/** The test guild's four channels, and eight more in two servers only memory knows of. */
const CHANNELS = [
	...[GENERAL, RANDOM, SECRET, THREAD].map((channelId) => ({ serverId: GUILD_ID, channelId })),
	...Array.from({ length: 8 }, (_, at) => ({
		serverId: `31000000000000000${1 + (at % 2)}`,
		channelId: `32000000000000${String(at).padStart(4, '0')}`
	}))
];

describe('/session on a store every call of which answers late: the first answer within 3 s, the final one true', () => {
	let bot: MemoryBot;
	let control: SlowStoreControl;
	let dir: string;

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), 'memory-slow-e2e-'));
		const file = join(dir, 'memory.sqlite');
		const slow = slowStore(new SqliteAdapter(file), 0);
		control = slow.control;
		// Members here run each subcommand more than once; the cooldowns have their own suite.
		bot = await startMemoryBot({
			keyv: new Keyv({ store: slow.store as never, namespace: 'memory' }),
			storeUrl: `sqlite://${file}`,
			sessionCooldowns: false
		});
		for (const member of [ALICE, BOB]) {
			await seed(member);
			await container.memory.updateProfile(member.id, { notes: [`${member.username} likes long walks`] });
			for (const title of ['Garden plans', 'Gaming night', 'Garage sale'])
				await container.memory.saveTopic(member.id, { title, note: `${member.username}: ${title}` });
		}
	}, 300_000);

	afterAll(async () => {
		await bot?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	/** `member`'s turns, round-robin over the channels, each answered by Sol. */
	async function seed(member: { id: string; username: string }) {
		for (let turn = 0; turn < TURNS; turn++) {
			const { serverId, channelId } = CHANNELS[turn % CHANNELS.length]!;
			const id = (offset: number) => `5${member.id.slice(-2)}${String(turn * 2 + offset).padStart(15, '0')}`;
			await container.memory.recordTurn({
				userId: member.id,
				userName: member.username,
				serverId,
				channelId,
				history: [
					{
						role: 'user',
						authorId: member.id,
						authorName: member.username,
						text: `${member.username} turn ${turn}`,
						messageId: id(0),
						timestamp: Date.now()
					}
				],
				responses: [{ text: `Sol hears ${member.username}`, personaId: 'sol', personaName: 'Sol', messageId: id(1) }]
			});
		}
	}

	/** Every first answer measured, to report the slowest. */
	const firstAnswers: { what: string; delayMs: number; ms: number; calls: number }[] = [];

	/** Waits for the interaction's final answer; asserts its first came within Discord's limit. */
	async function answered(what: string, interaction: FakeInteraction): Promise<InteractionAnswer> {
		const callsBefore = control.total();
		const answer = await bot.fake.waitForAnswer(interaction.id, FINAL_ANSWER_MS);
		const calls = control.total() - callsBefore;
		firstAnswers.push({ what, delayMs: control.delayMs, ms: answer.callbackAfterMs, calls });
		expect(answer.callbackAfterMs, `the first answer to ${what}`).toBeLessThan(DISCORD_LIMIT_MS);
		// However fast this store was today, an answer that waited for it was acknowledged first (autocomplete cannot be).
		const { type } = answer.callback.body as { type: number };
		if (calls > 0 && type !== InteractionResponseType.ApplicationCommandAutocompleteResult)
			expect([InteractionResponseType.DeferredChannelMessageWithSource, InteractionResponseType.DeferredMessageUpdate], what).toContain(type);
		return answer;
	}

	function session(user: string, subcommand: string, options?: CommandOptionsInput, channelId = GENERAL) {
		const interaction = bot.fake.slashCommand({ name: 'session', subcommand, ...(options ? { options } : {}), user, channelId });
		return answered(`/session ${subcommand} ${JSON.stringify(options ?? {})}`, interaction);
	}

	async function click(user: string, asked: FakeInteraction, data: Record<string, unknown>) {
		const customId = (data.components as { components: { custom_id: string }[] }[])[0]!.components[0]!.custom_id;
		const interaction = bot.fake.clickButton({ customId, messageId: String(bot.fake.originalMessage(asked.id)!.id), user });
		return answered(`the button ${customId}`, interaction);
	}

	async function exported(user: string): Promise<UserExport> {
		const { request } = await session(user, 'export');
		// One gzip file: a member of 600 turns is far under the attachment limit.
		expect(request.files).toHaveLength(1);
		return JSON.parse(gunzipSync(request.files[0]!.data).toString('utf8')) as UserExport;
	}

	describe.each<{
		member: typeof ALICE;
		delayMs: number;
		conversations: number;
		erase: { subcommand: string; options: CommandOptionsInput };
		wiped: string;
	}>([
		{ member: ALICE, delayMs: 20, conversations: 12, erase: { subcommand: 'clear', options: { scope: 'all' } }, wiped: RANDOM },
		// The moderator wiped #random in Alice's round: Bob's conversation there went too.
		{ member: BOB, delayMs: 100, conversations: 11, erase: { subcommand: 'privacy', options: { level: 'full' } }, wiped: SECRET }
	])('GIVEN $member.username with $delayMs ms per store call', ({ member, delayMs, conversations, erase, wiped }) => {
		beforeAll(() => {
			control.delayMs = delayMs;
		});

		afterAll(() => {
			control.delayMs = 0;
		});

		it('WHEN they ask for help and status THEN status counts their conversations', async () => {
			expect((await session(member.id, 'help')).data.content).toContain('/session export');
			const { data } = await session(member.id, 'status');

			expect(data.content).toContain(`Short-term conversations: ${conversations} ·`);
		});

		it('WHEN they ask for their profile THEN it shows their note and their three topics', async () => {
			const { data } = await session(member.id, 'profile');

			expect(data.content).toContain(`${member.username} likes long walks`);
			for (const slug of ['garden-plans', 'gaming-night', 'garage-sale']) expect(data.content).toContain(slug);
		});

		it('WHEN they type into forget THEN the keystrokes after the first do not go to the store', async () => {
			const keystroke = (typed: string) =>
				answered(
					`autocomplete "${typed}"`,
					bot.fake.autocomplete({
						name: 'session',
						subcommand: 'forget',
						options: { topic: typed },
						focused: 'topic',
						user: member.id,
						channelId: GENERAL
					})
				);
			// Their three topics, and their profile's note ("… likes long walks"), which forget removes too.
			const first = await keystroke('g');
			expect((first.data.choices as { name: string }[]).map((choice) => choice.name).sort()).toEqual([
				'Gaming night',
				'Garage sale',
				'Garden plans',
				`Note: ${member.username} likes long walks`
			]);
			const before = control.total();

			const next = await keystroke('gar');

			expect(control.total()).toBe(before);
			expect(next.callback.body).toMatchObject({ type: InteractionResponseType.ApplicationCommandAutocompleteResult });
			// Newest first.
			expect(next.data.choices).toEqual([
				{ name: 'Garage sale', value: 'garage-sale' },
				{ name: 'Garden plans', value: 'garden-plans' }
			]);
		});

		it('WHEN they forget a topic THEN it is gone, and their next keystroke no longer offers it', async () => {
			expect((await session(member.id, 'forget', { topic: 'garage-sale' })).data.content).toBe('Forgot the topic `garage-sale`.');

			const { data } = await answered(
				'autocomplete after forget',
				bot.fake.autocomplete({
					name: 'session',
					subcommand: 'forget',
					options: { topic: 'gar' },
					focused: 'topic',
					user: member.id,
					channelId: GENERAL
				})
			);
			expect(data.choices).toEqual([{ name: 'Garden plans', value: 'garden-plans' }]);
		});

		it('WHEN they export THEN the file holds every one of their turns, their conversations and their topics', async () => {
			const data = await exported(member.id);

			const everything = JSON.stringify(data);
			const kept = Array.from({ length: TURNS }, (_, turn) => turn).filter(
				(turn) => member === ALICE || CHANNELS[turn % CHANNELS.length]!.channelId !== RANDOM
			);
			for (const turn of kept) expect(everything).toContain(`"${member.username} turn ${turn}"`);
			expect(data.shortTerm).toHaveLength(conversations);
			expect(data.topics.map((topic) => topic.slug).sort()).toEqual(['gaming-night', 'garden-plans']);
		});

		it('WHEN they look at their privacy THEN it is minimal', async () => {
			expect((await session(member.id, 'privacy')).data.content).toContain('Privacy level: **minimal**');
		});

		it('WHEN a moderator wipes a channel THEN it says what it forgot, and nothing of it is left', async () => {
			const { data } = await session(CAROL.id, 'wipe-channel', { channel: wiped });

			expect(data.content).toMatch(new RegExp(`^Forgot <#${wiped}>: \\d+ conversations and [1-9]\\d* archived messages\\.$`));
			const archive = (await exported(member.id)).archive.map((message) => message.channelId);
			expect(archive).not.toContain(wiped);
			expect(archive.length).toBeGreaterThan(0);
		});

		it('WHEN they forget one message and keep another from the Apps menu THEN each answers within 3 s, and does it', async () => {
			// Asides Sol does not answer: memory holds no copy, and Discord names the member their author.
			const aside = bot.fake.sendMessage({ channelId: GENERAL, author: member.id, content: `// ${member.username}'s gate code is 0815` });
			const forgot = await answered(
				'Forget this message',
				bot.fake.messageCommand({ name: 'Forget this message', user: member.id, messageId: String(aside.id) })
			);
			expect(forgot.data.content).toMatch(/^Forgotten/);
			const kept = bot.fake.sendMessage({ channelId: GENERAL, author: member.id, content: `// ${member.username} takes the night train` });
			const remembered = await answered(
				'Remember this',
				bot.fake.messageCommand({ name: 'Remember this', user: member.id, messageId: String(kept.id) })
			);
			expect(remembered.data.content).toMatch(/^Kept in your profile/);
			expect((await container.memory.getProfile(member.id))?.notes).toContain(`// ${member.username} takes the night train`);
		});

		it('WHEN they ask what Sol’s reply drew on and forget a line of it THEN each answers within 3 s, and the line is forgotten', async () => {
			const said = async (content: string) => {
				const recorded = nextTurnRecorded(bot.client, (turn) => turn.history.some((message) => message.text === content), FINAL_ANSWER_MS);
				const sent = bot.fake.sendMessage({ channelId: GENERAL, author: member.id, content });
				await recorded;
				return exchanges.get(String(sent.id))!;
			};
			await said(`${member.username} parks on level four`);
			const { reply } = await said('where do I park?');
			const asked = bot.fake.messageCommand({ name: 'What did you remember?', user: member.id, messageId: reply.id });
			const { data } = await answered('What did you remember?', asked);
			const embeds = data.embeds as { description: string }[];
			const line = embeds.flatMap((embed) => embed.description.split('\n')).find((candidate) => candidate.includes('parks on level four'))!;
			const number = /^\*\*(\d+)\.\*\*/.exec(line)![1];
			const buttons = (data.components as { components: { custom_id: string; label: string }[] }[]).flatMap((row) => row.components);
			const customId = buttons.find((button) => button.label === `Forget ${number}`)!.custom_id;
			const messageId = String(bot.fake.originalMessage(asked.id)!.id);
			const clicked = await answered('its Forget button', bot.fake.clickButton({ customId, messageId, user: member.id }));
			expect(JSON.stringify(clicked.data.embeds)).toContain(`**${number}.** *forgotten*`);
		});

		it('WHEN they clear their short-term memory THEN it counts their conversations, and the export holds none', async () => {
			const { data } = await session(member.id, 'clear');

			expect(data.content).toMatch(
				// Less the one in the wiped channel.
				new RegExp(`^Forgot your recent conversations: ${conversations - 1} of your conversations, and \\d+ messages`)
			);
			expect(await exported(member.id)).toMatchObject({ shortTerm: [], sharedShortTerm: [] });
		});

		it('WHEN they erase everything and confirm THEN the button answers within 3 s, the message says done, and the export is empty', async () => {
			const asked = bot.fake.slashCommand({
				name: 'session',
				subcommand: erase.subcommand,
				options: erase.options,
				user: member.id,
				channelId: GENERAL
			});
			const question = await answered(`/session ${erase.subcommand}`, asked);
			expect(question.data.content).toContain('cannot be undone');

			const done = await click(member.id, asked, question.data);

			expect(done.callback.body).toEqual({ type: InteractionResponseType.DeferredMessageUpdate });
			expect(done.data).toMatchObject({ content: expect.stringMatching(/^Done: everything memory held about you is gone/), components: [] });
			expect(await exported(member.id)).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [], profile: null, topics: [] });
		});
	});

	it('GIVEN everything above THEN every first answer came within 3 s, and the bot asked for nothing the fake does not know', () => {
		expect(firstAnswers.length).toBeGreaterThanOrEqual(30);
		expect(firstAnswers.filter(({ ms }) => ms >= DISCORD_LIMIT_MS)).toEqual([]);
		expect(bot.fake.unhandledRequests()).toEqual([]);
	});
});
