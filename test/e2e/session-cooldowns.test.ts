import '../../src/register';
import { setTimeout as sleep } from 'node:timers/promises';
import { container } from '@sapphire/framework';
import { InteractionResponseType } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PrivacyLevel } from '../../src';
import type { CommandOptionsInput } from '../../tools/fake-discord';
import { ALICE, BOB, DAVE, ephemeralAnswer, GENERAL, type MemoryBot, remember, startMemoryBot } from '../support/memory-bot';

/** The export's cooldown here: short, to see it run out. */
const EXPORT_DELAY_MS = 400;

describe('/session cooldowns: a member who runs export, clear or privacy too often is told when to try again', () => {
	let bot: MemoryBot;

	beforeAll(async () => {
		// export: its own delay; clear: off; privacy: the default (3 a minute).
		bot = await startMemoryBot({ sessionCooldowns: { export: { delay: EXPORT_DELAY_MS }, clear: false } });
	});

	afterAll(() => bot?.stop());

	function session(user: string, subcommand: string, options?: CommandOptionsInput) {
		return ephemeralAnswer(
			bot.fake,
			bot.fake.slashCommand({ name: 'session', subcommand, ...(options ? { options } : {}), user, channelId: GENERAL })
		);
	}

	/** The second of a `<t:…:R>` timestamp in an answer. */
	const retryAt = (content: string) => Number(/<t:(\d+):R>/.exec(content)?.[1]);

	describe('GIVEN the default cooldown of privacy (3 runs a minute)', () => {
		it('WHEN Dave runs it a fourth time THEN he is told, at once and only him, to retry in about a minute, and nothing changes', async () => {
			for (const level of ['partial', 'minimal', 'partial'])
				expect((await session(DAVE.id, 'privacy', { level })).content).toContain(`**${level}**`);

			const refused = await session(DAVE.id, 'privacy', { level: 'minimal' });

			expect(refused.content).toMatch(/^You just ran `\/session privacy`: try again <t:\d+:R>\. Nothing was done this time\.$/);
			const inSeconds = retryAt(refused.content) - Date.now() / 1000;
			expect(inSeconds).toBeGreaterThan(50);
			expect(inSeconds).toBeLessThanOrEqual(61);
			// Answered by the callback itself: no deferral, no store.
			expect(refused.answer.callback.body).toMatchObject({ type: InteractionResponseType.ChannelMessageWithSource });
			// Still the last level he chose before he was refused.
			expect((await container.memory.getUserSettings(DAVE.id)).privacyLevel).toBe(PrivacyLevel.PARTIAL);
		});

		it('WHEN Bob runs privacy meanwhile THEN Dave’s cooldown does not hold him back', async () => {
			const { content } = await session(BOB.id, 'privacy');

			expect(content).toContain('Privacy level: **minimal**');
		});

		it('WHEN Dave runs status and help THEN they have no cooldown', async () => {
			for (let run = 0; run < 5; run++) {
				expect((await session(DAVE.id, 'status')).content).toContain('**Your memory**');
				expect((await session(DAVE.id, 'help')).content).toContain('/session export');
			}
		});
	});

	describe('GIVEN an export cooldown of 400 ms', () => {
		it('WHEN Alice exports twice THEN the second gets no file and a time to retry; once it passed she exports again', async () => {
			await remember(ALICE, GENERAL, 'alice: my export test');
			expect((await session(ALICE.id, 'export')).request.files).toHaveLength(1);

			const refused = await session(ALICE.id, 'export');

			expect(refused.content).toMatch(/^You just ran `\/session export`: try again <t:\d+:R>/);
			expect(refused.request.files).toEqual([]);
			await sleep(EXPORT_DELAY_MS + 50);
			expect((await session(ALICE.id, 'export')).request.files).toHaveLength(1);
		});

		it('WHEN memory fails her export THEN she is told to try again in a moment, and that run does not count', async () => {
			await sleep(EXPORT_DELAY_MS + 50);
			const failing = vi.spyOn(container.memory, 'exportUser').mockRejectedValueOnce(new Error('store down'));
			try {
				expect((await session(ALICE.id, 'export')).content).toBe(
					'Memory is unavailable right now; nothing was changed. Try again in a moment.'
				);
			} finally {
				failing.mockRestore();
			}

			expect((await session(ALICE.id, 'export')).request.files).toHaveLength(1);
		});
	});

	describe('GIVEN the clear cooldown turned off', () => {
		it('WHEN Alice clears five times in a row THEN each runs', async () => {
			for (let run = 0; run < 5; run++) expect((await session(ALICE.id, 'clear')).content).toMatch(/^Forgot your recent conversations/);
		});
	});
});
