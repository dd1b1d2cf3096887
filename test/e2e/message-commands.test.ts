/**
 * The message commands that come with `/session`, run from Discord's Apps menu on a real client logged in to the fake
 * Discord: Forget this message and Remember this, by the member, by a moderator, by someone else (refused); every answer
 * ephemeral; the raw store looked at after.
 */
import '../../src/register';
import { container } from '@sapphire/framework';
import { ApplicationCommandType } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivacyLevel } from '../../src';
import { logEmptied } from '../support/engine';
import { ALICE, BOB, CAROL, converse, DAVE, ephemeralAnswer, GENERAL, type MemoryBot, startMemoryBot } from '../support/memory-bot';
import { holdersOf, rawRows } from '../support/store-inspection';
import type { CommandOptionsInput } from '../../tools/fake-discord';

const FORGET = 'Forget this message';
const REMEMBER = 'Remember this';

describe('the message commands Forget this message and Remember this', () => {
	let bot: MemoryBot;
	const location = () => ({ storeUrl: bot.storeUrl, namespace: container.memory.config.storeNamespace });

	beforeAll(async () => {
		bot = await startMemoryBot({ sessionCooldowns: false });
		await bot.fake.waitForCommand(FORGET, { type: ApplicationCommandType.Message });
		await bot.fake.waitForCommand(REMEMBER, { type: ApplicationCommandType.Message });
	});

	afterAll(async () => {
		await bot?.stop();
	});

	/** Runs a message command as `user` on `messageId`; resolves with the ephemeral answer's text. */
	async function run(name: string, user: string, messageId: string): Promise<string> {
		return (await ephemeralAnswer(bot.fake, bot.fake.messageCommand({ name, user, messageId }))).content;
	}

	/** Alice runs `/session <subcommand>` in #general; resolves with the ephemeral answer's text. */
	async function session(subcommand: string, options?: CommandOptionsInput): Promise<string> {
		const interaction = bot.fake.slashCommand({
			name: 'session',
			subcommand,
			...(options ? { options } : {}),
			user: ALICE.id,
			channelId: GENERAL
		});
		return (await ephemeralAnswer(bot.fake, interaction)).content;
	}

	it('WHEN Alice forgets her own message THEN it and Sol’s reply that repeats it leave the store; it stays on Discord', async () => {
		const { sent } = await converse(bot, ALICE.id, GENERAL, 'my locker code is 5521');
		expect(await holdersOf(location(), '5521')).not.toEqual([]);
		expect(await run(FORGET, ALICE.id, String(sent.id))).toMatch(/^Forgotten: memory holds nothing of this message/);
		await logEmptied(container.memory);
		expect(await holdersOf(location(), '5521')).toEqual([]);
		expect(bot.fake.messagesIn(GENERAL).map((message) => message.id)).toContain(sent.id);
	});

	it('WHEN Bob runs it on Alice’s message THEN he is refused and nothing changes; Carol, a moderator, may', async () => {
		const { sent } = await converse(bot, ALICE.id, GENERAL, 'the spare key is under the blue pot');
		expect(await run(FORGET, BOB.id, String(sent.id))).toMatch(/^This message is not yours/);
		expect(await holdersOf(location(), 'blue pot')).not.toEqual([]);
		expect(await run(FORGET, CAROL.id, String(sent.id))).toMatch(/^Forgotten/);
		await logEmptied(container.memory);
		expect(await holdersOf(location(), 'blue pot')).toEqual([]);
	});

	it('WHEN Alice forgets Sol’s reply to her THEN the reply goes and her message stays; Bob may not', async () => {
		const { exchange } = await converse(bot, ALICE.id, GENERAL, 'we rehearse in hall seven');
		const replyId = exchange.reply.id;
		expect(await run(FORGET, BOB.id, replyId)).toMatch(/^This message is not yours/);
		expect(await run(FORGET, ALICE.id, replyId)).toMatch(/^Forgotten: memory holds nothing of this reply/);
		await logEmptied(container.memory);
		expect(await holdersOf(location(), 'noted "we rehearse')).toEqual([]);
		expect(await holdersOf(location(), 'we rehearse in hall seven')).not.toEqual([]);
	});

	it('WHEN Alice keeps her own message THEN it is a note of her profile; Bob may not keep it', async () => {
		const { sent } = await converse(bot, ALICE.id, GENERAL, 'I am allergic to peanuts');
		expect(await run(REMEMBER, BOB.id, String(sent.id))).toMatch(/^You can keep your own messages/);
		expect(await container.memory.getProfile(BOB.id)).toBeNull();
		expect(await run(REMEMBER, ALICE.id, String(sent.id))).toBe('Kept in your profile: “I am allergic to peanuts”. `/session profile` shows it.');
		expect((await container.memory.getProfile(ALICE.id))?.notes).toContain('I am allergic to peanuts');

		// /session profile shows it, and /session forget offers it and removes it.
		expect(await session('profile')).toContain('• I am allergic to peanuts');
		const offered = bot.fake.autocomplete({
			name: 'session',
			subcommand: 'forget',
			options: { topic: 'peanut' },
			focused: 'topic',
			user: ALICE.id,
			channelId: GENERAL
		});
		const { choices } = (await bot.fake.waitForAnswer(offered.id)).data as { choices: { name: string; value: string }[] };
		expect(choices).toEqual([{ name: 'Note: I am allergic to peanuts', value: expect.stringMatching(/^note:/) }]);
		expect(await session('forget', { topic: choices[0]!.value })).toBe('Forgot the note “I am allergic to peanuts”.');
		expect((await container.memory.getProfile(ALICE.id))?.notes ?? []).not.toContain('I am allergic to peanuts');
		// Her message itself stays in the conversation's memory: only the note went.
		expect((await rawRows(location())).filter((row) => row.includes('ltm:profile') && row.includes('peanuts'))).toEqual([]);
		expect(await session('forget', { topic: choices[0]!.value })).toMatch(/^That note is no longer in your profile/);
	});

	it('WHEN a PARTIAL member asks to keep a message THEN nothing is kept, and the answer says why', async () => {
		await container.memory.setUserSettings(DAVE.id, { privacyLevel: PrivacyLevel.PARTIAL });
		const { sent } = await converse(bot, DAVE.id, GENERAL, 'I drive a green van');
		expect(await run(REMEMBER, DAVE.id, String(sent.id))).toMatch(/^Your privacy level is partial, so memory keeps no profile/);
		expect(await container.memory.getProfile(DAVE.id)).toBeNull();
	});

	it('WHEN a member asks /session help THEN the message commands are listed by name', async () => {
		const content = await session('help');
		expect(content).toContain(`**${FORGET}**`);
		expect(content).toContain(`**${REMEMBER}**`);
	});
});
