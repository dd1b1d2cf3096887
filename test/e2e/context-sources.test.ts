/**
 * What did you remember?, run from Discord's Apps menu on a persona's reply on a real client logged in to the fake Discord:
 * the member sees the memories the reply's context held, with jump links and a Forget button on each of their own lines;
 * another member sees what their channels show and a count of the rest; after an erasure nothing is shown.
 */
import '../../src/register';
import { container } from '@sapphire/framework';
import { ApplicationCommandType } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logEmptied } from '../support/engine';
import { ALICE, BOB, CAROL, converse, ephemeralAnswer, GENERAL, GUILD_ID, type MemoryBot, SECRET, startMemoryBot } from '../support/memory-bot';
import { holdersOf } from '../support/store-inspection';

const SOURCES = 'What did you remember?';

interface Answer {
	content: string;
	embeds: { title?: string; description?: string }[];
	buttons: { custom_id: string; label: string; disabled?: boolean }[];
}

describe('the message command What did you remember?', () => {
	let bot: MemoryBot;
	const location = () => ({ storeUrl: bot.storeUrl, namespace: container.memory.config.storeNamespace });

	beforeAll(async () => {
		bot = await startMemoryBot({ sessionCooldowns: false });
		await bot.fake.waitForCommand(SOURCES, { type: ApplicationCommandType.Message });
	});

	afterAll(async () => {
		await bot?.stop();
	});

	function shaped(data: Record<string, unknown>): Answer {
		const rows = (data.components ?? []) as { components: Answer['buttons'] }[];
		return {
			content: String(data.content ?? ''),
			embeds: (data.embeds ?? []) as Answer['embeds'],
			buttons: rows.flatMap((row) => row.components)
		};
	}

	/** Runs What did you remember? as `user` on `messageId`: the ephemeral answer, and the interaction it answered. */
	async function sources(user: string, messageId: string) {
		const interaction = bot.fake.messageCommand({ name: SOURCES, user, messageId });
		return { ...shaped((await ephemeralAnswer(bot.fake, interaction)).data), interaction };
	}

	const lines = (answer: Answer) => answer.embeds.flatMap((embed) => (embed.description ?? '').split('\n'));

	it('WHEN Alice asks about Sol’s reply to her THEN she sees the lines its context held, with jump links and Forget buttons on hers', async () => {
		const { sent: first } = await converse(bot, ALICE.id, GENERAL, 'my cat is called Pixel');
		await converse(bot, BOB.id, GENERAL, 'the raffle is on Saturday');
		const { exchange } = await converse(bot, ALICE.id, GENERAL, 'what is my cat called?');
		const answer = await sources(ALICE.id, exchange.reply.id);
		expect(answer.content).toMatch(/^What memory gave the persona for this reply \(<t:\d+:R>\):/);
		const pixel = lines(answer).find((line) => line.includes('my cat is called Pixel'))!;
		expect(pixel).toContain(`https://discord.com/channels/${GUILD_ID}/${GENERAL}/${first.id}`);
		expect(lines(answer).some((line) => line.includes('the raffle is on Saturday'))).toBe(true);
		// A button for each of her lines (her messages, Sol's replies to her), none for Bob's.
		const number = /^\*\*(\d+)\.\*\*/.exec(pixel)![1];
		const button = answer.buttons.find((candidate) => candidate.label === `Forget ${number}`)!;
		expect(button.custom_id).toBe(`memory:forget-line:${GUILD_ID}:${GENERAL}:${first.id}:${number}`);
		const raffle = lines(answer).find((line) => line.includes('raffle'))!;
		expect(answer.buttons.some((candidate) => candidate.label === `Forget ${/^\*\*(\d+)\.\*\*/.exec(raffle)![1]}`)).toBe(false);

		// Bob cannot use her button: memory checks whose message it is.
		const message = String(bot.fake.originalMessage(answer.interaction.id)!.id);
		const forged = await bot.fake.waitForAnswer(bot.fake.clickButton({ customId: button.custom_id, messageId: message, user: BOB.id }).id);
		expect(String(forged.data.content)).toMatch(/^That message is not yours to forget/);
		expect(await holdersOf(location(), 'called Pixel')).not.toEqual([]);

		const clicked = shaped(
			(await bot.fake.waitForAnswer(bot.fake.clickButton({ customId: button.custom_id, messageId: message, user: ALICE.id }).id)).data
		);
		expect(lines(clicked)).toContain(`**${number}.** *forgotten*`);
		expect(clicked.buttons.find((candidate) => candidate.custom_id === button.custom_id)).toMatchObject({
			label: `Forgotten ${number}`,
			disabled: true
		});
		await logEmptied(container.memory);
		expect(await holdersOf(location(), 'called Pixel')).toEqual([]);
		// Asked again, the line is gone and counted so, with Sol's reply to it, which went with it.
		const again = await sources(ALICE.id, exchange.reply.id);
		expect(lines(again).some((line) => line.includes('Pixel'))).toBe(false);
		expect(again.content).toMatch(/\n2 no longer in memory/);
	});

	it('WHEN Bob asks about Sol’s reply to Alice THEN lines from #secret, which he cannot view, are counted and not shown', async () => {
		await converse(bot, ALICE.id, SECRET, 'the vault code is 9911');
		const { exchange } = await converse(bot, ALICE.id, GENERAL, 'anything new in the vault?');
		const hers = await sources(ALICE.id, exchange.reply.id);
		expect(lines(hers).some((line) => line.includes('the vault code is 9911') && line.includes(`/${SECRET}/`))).toBe(true);
		const his = await sources(BOB.id, exchange.reply.id);
		expect(lines(his).some((line) => line.includes('9911'))).toBe(false);
		expect(his.content).toMatch(/\d+ from channels you cannot view/);
		expect(lines(his).some((line) => line.includes('anything new in the vault?'))).toBe(false);
		// Carol, a moderator, can view #secret: she sees the line, yet has no button to forget it, as it is not hers.
		const hersAsCarol = await sources(CAROL.id, exchange.reply.id);
		const vault = lines(hersAsCarol).find((line) => line.includes('the vault code is 9911'))!;
		expect(vault).toBeDefined();
		expect(hersAsCarol.buttons.map((button) => button.label)).not.toContain(`Forget ${/^\*\*(\d+)\.\*\*/.exec(vault)![1]}`);
		// Only his own lines (his raffle message, Sol's reply to it) have a Forget button.
		const numberedLine = (label: string) => lines(his).find((line) => line.startsWith(`**${label.split(' ')[1]}.**`))!;
		expect(his.buttons.length).toBeGreaterThan(0);
		for (const button of his.buttons) expect(numberedLine(button.label)).toContain('raffle');
	});

	it('WHEN it is run on a member’s message, or after Alice’s erasure, THEN it says memory keeps no record and shows nothing', async () => {
		const { sent, exchange } = await converse(bot, ALICE.id, GENERAL, 'I sing in a choir');
		expect((await sources(ALICE.id, String(sent.id))).content).toMatch(/^Memory keeps no record of what this reply drew on/);
		expect(lines(await sources(ALICE.id, exchange.reply.id)).length).toBeGreaterThan(0);
		await container.memory.clearAll(ALICE.id);
		const after = await sources(ALICE.id, exchange.reply.id);
		expect(after).toMatchObject({ embeds: [], buttons: [] });
		expect(after.content).toMatch(/^Memory keeps no record/);
		expect((await sources(BOB.id, exchange.reply.id)).content).toMatch(/^Memory keeps no record/);
	});

	it('WHEN a member asks /session help THEN the command is listed by name', async () => {
		const { content } = await ephemeralAnswer(
			bot.fake,
			bot.fake.slashCommand({ name: 'session', subcommand: 'help', user: ALICE.id, channelId: GENERAL })
		);
		expect(content).toContain(`**${SOURCES}**`);
	});
});
