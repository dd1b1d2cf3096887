import '../../src/register';
import { gunzipSync, gzipSync } from 'node:zlib';
import { container } from '@sapphire/framework';
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UserExport } from '../../src';
import { joinExportParts, type UserExportPart } from '../../src/plugin/exportFiles';
import type { FakeInteraction, RecordedRequest } from '../../tools/fake-discord';
import { ALICE, BOB, CAROL, ephemeralAnswer, GENERAL, type MemoryBot, RANDOM, remember, startMemoryBot } from '../support/memory-bot';

/** A button as Discord sends it back in a message's components. */
interface SentButton {
	custom_id: string;
	label: string;
	disabled?: boolean;
}

const buttonsOf = (data: Record<string, unknown>) => ((data.components ?? []) as { components: SentButton[] }[]).flatMap((row) => row.components);

describe('/session under Discord’s limits: exports that fit, answers never cut', () => {
	let bot: MemoryBot;

	beforeAll(async () => {
		// Bob exports several times in a row: the cooldowns are tested elsewhere.
		bot = await startMemoryBot({ sessionCooldowns: false });
	});

	afterAll(() => bot?.stop());

	describe('GIVEN Bob, who talked with Sol 300 times, and a server whose attachment limit is small', () => {
		// Words of random letters (a fixed seed), so his export compresses as chat does and not down to nothing.
		let seed = 7;
		const random = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
		const word = () =>
			Array.from({ length: 2 + Math.floor(random() * 8) }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random() * 26)]).join('');
		let raw = 0;
		let compressed = 0;

		beforeAll(async () => {
			for (let turn = 0; turn < 300; turn++)
				await remember(
					BOB,
					turn % 2 ? GENERAL : RANDOM,
					`bob #${turn}: ${Array.from({ length: 30 }, word).join(' ')}`,
					`Sol: ${word()} ${word()}`
				);
			const whole = JSON.stringify(await container.memory.exportUser(BOB.id), null, 2);
			raw = Buffer.byteLength(whole);
			compressed = gzipSync(whole).length;
		});

		/** Bob runs `/session export` where uploads may take `limit` bytes; resolves with the first answer and every file sent. */
		async function exportWithin(limit: number) {
			const interaction = bot.fake.slashCommand({
				name: 'session',
				subcommand: 'export',
				user: BOB.id,
				channelId: GENERAL,
				attachmentSizeLimit: limit
			});
			const { content } = await ephemeralAnswer(bot.fake, interaction);
			// As many files as the answer announces: parts, one whole file, or none.
			const files = Number(/in (\d+) parts/.exec(content)?.[1] ?? (content.startsWith('Here is everything') ? 1 : 0));
			const requests = await filesSent(interaction, files);
			return { content, requests, files: requests.flatMap((request) => request.files) };
		}

		/** The requests that carried the interaction's files, once `count` files arrived. */
		async function filesSent(interaction: FakeInteraction, count: number): Promise<RecordedRequest[]> {
			const withFiles = () => bot.fake.interactionResponses(interaction.id).filter((request) => request.files.length > 0);
			await bot.fake.waitFor(() => withFiles().reduce((sum, request) => sum + request.files.length, 0) >= count);
			return withFiles();
		}

		it('WHEN his export is over the limit but fits compressed THEN he gets it whole, as one gzip file', async () => {
			const limit = Math.floor((raw + compressed) / 2);

			const { content, files } = await exportWithin(limit);

			expect(raw).toBeGreaterThan(limit);
			expect(content).toBe(
				'Here is everything this bot’s memory holds about you, as a JSON file compressed with gzip (any archive tool opens it).'
			);
			expect(files.map((file) => file.filename)).toEqual([`memory-export-${BOB.id}.json.gz`]);
			const exported = JSON.parse(gunzipSync(files[0]!.data).toString('utf8')) as UserExport;
			expect(exported).toEqual(await exportedNow(BOB.id, exported.exportedAt));
		});

		it('WHEN even compressed it is over the limit THEN it comes in parts that each fit, which gunzipped and joined are his export', async () => {
			const limit = Math.floor(compressed / 4);

			const { content, requests, files } = await exportWithin(limit);

			const parts = files.map((file) => JSON.parse(gunzipSync(file.data).toString('utf8')) as UserExportPart);
			expect(parts.length).toBeGreaterThanOrEqual(4);
			expect(content).toContain(`it comes in ${parts.length} parts, in ${requests.length} messages`);
			for (const request of requests) {
				expect(request.status).toBeLessThan(300);
				expect(request.files.length).toBeLessThanOrEqual(10);
				expect(request.files.reduce((sum, file) => sum + file.data.length, 0)).toBeLessThanOrEqual(limit);
			}
			expect(files.map((file) => file.filename)).toEqual(
				parts.map((_, index) => `memory-export-${BOB.id}.part-${index + 1}-of-${parts.length}.json.gz`)
			);
			// Each part reads on its own: which one it is, and a slice of the lists.
			expect(parts.map((part) => [part.part, part.parts])).toEqual(parts.map((_, index) => [index + 1, parts.length]));
			for (const part of parts.slice(1)) expect(part.archive.length + part.sharedShortTerm.length + part.shortTerm.length).toBeGreaterThan(0);
			const joined = joinExportParts(parts);
			expect(joined).toEqual(await exportedNow(BOB.id, joined.exportedAt));
			expect(JSON.stringify(joined)).toContain('bob #299: ');
		});

		it('WHEN one record alone cannot fit THEN he is told so, and that the operators can export it with sapphire-memory export', async () => {
			const { content, files } = await exportWithin(256);

			expect(files).toEqual([]);
			expect(content).toContain('`sapphire-memory export`');
		});
	});

	describe('GIVEN Alice, whose profile holds the most the limits allow', () => {
		const padded = (head: string, length: number) => `${head} ${'abcdefghij'.repeat(length)}`.slice(0, length);
		const preferences = Object.fromEntries(
			Array.from({ length: 50 }, (_, index) => [padded(`preference ${index}`, 64), padded(`value ${index}`, 200)])
		);
		const notes = Array.from({ length: 50 }, (_, index) => padded(`note ${index}`, 500));
		const tags = Array.from({ length: 30 }, (_, index) => padded(`tag ${index}`, 50));
		const topics = Array.from({ length: 100 }, (_, index) => ({
			title: padded(`Topic ${index}`, 100),
			note: padded(`topic note ${index}`, 2000)
		}));
		let first: { content: string; data: Record<string, unknown>; messageId: string };

		beforeAll(async () => {
			await container.memory.updateProfile(ALICE.id, { preferences, notes, tags });
			for (const topic of topics) await container.memory.saveTopic(ALICE.id, topic);
			const asked = bot.fake.slashCommand({ name: 'session', subcommand: 'profile', user: ALICE.id, channelId: GENERAL });
			const { content, data } = await ephemeralAnswer(bot.fake, asked);
			first = { content, data, messageId: String(bot.fake.originalMessage(asked.id)!.id) };
		});

		/** A member clicks one of the buttons on Alice's profile; resolves with what they see then. */
		async function click(user: string, button: SentButton) {
			return bot.fake.waitForAnswer(bot.fake.clickButton({ customId: button.custom_id, messageId: first.messageId, user }).id);
		}

		it('WHEN she pages through /session profile THEN every page fits a message, and the pages together are all that is stored', async () => {
			const pages = [first.content];
			let buttons = buttonsOf(first.data);
			expect(buttons.map((button) => [button.label, Boolean(button.disabled)])).toEqual([
				['◀', true],
				[expect.stringMatching(/^1 \/ \d+$/), true],
				['▶', false]
			]);
			while (!buttons[2]!.disabled) {
				const { data } = await click(ALICE.id, buttons[2]!);
				pages.push(String(data.content));
				buttons = buttonsOf(data);
				expect(buttons[1]!.label).toBe(`${pages.length} / ${buttons[1]!.label.split(' / ')[1]}`);
			}

			expect(buttons[1]!.label).toBe(`${pages.length} / ${pages.length}`);
			for (const page of pages) expect(page.length).toBeLessThanOrEqual(2000);
			const whole = pages.join('\n');
			expect(whole).not.toContain('…');
			const stored = (await container.memory.listTopics(ALICE.id)).map((topic) => `• ${topic.title} (\`${topic.slug}\`)`);
			expect(stored).toHaveLength(100);
			expect(whole.split('\n').filter((line) => line.startsWith('• '))).toEqual([
				...Object.entries(preferences).map(([name, value]) => `• ${name}: ${value}`),
				...notes.map((note) => `• ${note}`),
				...stored
			]);
			expect(whole).toContain(`Tags: ${tags.join(', ')}`);
		});

		it('WHEN she goes back with ◀ THEN she sees the page before', async () => {
			const { data: second } = await click(ALICE.id, buttonsOf(first.data)[2]!);
			const { data: back } = await click(ALICE.id, buttonsOf(second)[0]!);

			expect(back.content).toBe(first.content);
			expect(buttonsOf(back)[1]!.label).toMatch(/^1 \//);
		});

		it('WHEN Carol presses Alice’s ▶ THEN she is refused, ephemerally, and Alice’s page stays as it is', async () => {
			const shown = bot.fake.messagesIn(GENERAL).find((message) => message.id === first.messageId)!.content;

			const { callback, data } = await click(CAROL.id, buttonsOf(first.data)[2]!);

			expect(Number(data.flags) & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
			expect(data.content).toBe('These pages belong to someone else. `/session profile` shows your own.');
			expect(callback.path).toMatch(/\/callback$/);
			expect(bot.fake.messagesIn(GENERAL).find((message) => message.id === first.messageId)!.content).toBe(shown);
		});

		it('WHEN she presses ▶ more than 10 minutes later THEN the pages say they expired and how to see them again', async () => {
			vi.useFakeTimers({ toFake: ['Date'] });
			try {
				vi.setSystemTime(Date.now() + 10 * 60_000 + 1000);
				const { data } = await click(ALICE.id, buttonsOf(first.data)[2]!);

				expect(data.content).toBe('These pages expired after 10 minutes. Run `/session profile` to see them again.');
				expect(data.components).toEqual([]);
			} finally {
				vi.useRealTimers();
			}
		});

		it('WHEN everything of hers was erased since THEN the next page she asks for says nothing is stored, with no buttons left', async () => {
			await container.memory.clearAll(ALICE.id);

			const { data } = await click(ALICE.id, buttonsOf(first.data)[2]!);

			expect(data.content).toBe('No profile or topic notes are stored about you.');
			expect(data.components).toEqual([]);
		});
	});

	describe('GIVEN a host whose heading of /session status runs over a message on its own', () => {
		const heading = Array.from({ length: 30 }, (_, index) =>
			`**What I keep of you**, line ${index} of the host's own words`.padEnd(90, '.')
		).join('\n');

		beforeAll(() => {
			// The plugin reads its options when given them: a new `memory` object, not a field changed in place.
			bot.client.options.memory = { ...bot.client.options.memory, sessionStrings: { 'en-US': { 'status.heading': heading } } };
		});

		afterAll(() => {
			const { sessionStrings: _, ...rest } = bot.client.options.memory!;
			bot.client.options.memory = rest;
		});

		it('WHEN Carol, a moderator, pages through /session status THEN she reads all of it, the bot-wide counters last', async () => {
			const asked = bot.fake.slashCommand({ name: 'session', subcommand: 'status', user: CAROL.id, channelId: GENERAL });
			const { content, data } = await ephemeralAnswer(bot.fake, asked);
			const messageId = String(bot.fake.originalMessage(asked.id)!.id);
			const pages = [content];
			let buttons = buttonsOf(data);
			while (buttons[2] && !buttons[2].disabled) {
				const next = await bot.fake.waitForAnswer(bot.fake.clickButton({ customId: buttons[2].custom_id, messageId, user: CAROL.id }).id);
				pages.push(String(next.data.content));
				buttons = buttonsOf(next.data);
			}

			expect(pages.length).toBeGreaterThan(1);
			for (const page of pages) expect(page.length).toBeLessThanOrEqual(2000);
			const whole = pages.join('\n');
			expect(whole.startsWith(`${heading}\nPrivacy level: **minimal**`)).toBe(true);
			expect(whole).toContain('Storage: sqlite · recent messages kept 12 h');
			expect(whole.split('\n').at(-1)).toMatch(/^Bot-wide: \d+ turns captured/);
		});
	});
});

/** What memory holds about the member now, dated as the export under test was. */
async function exportedNow(userId: string, exportedAt: string): Promise<UserExport> {
	return { ...(await container.memory.exportUser(userId)), exportedAt };
}
