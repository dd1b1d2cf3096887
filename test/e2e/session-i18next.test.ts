import '@sapphire/plugin-i18next/register';
import '../../src/register';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, ephemeralAnswer, GENERAL, type MemoryBot, startMemoryBot } from '../support/memory-bot';

describe('GIVEN a host on @sapphire/plugin-i18next with a German `memory` namespace', () => {
	const languages = mkdtempSync(join(tmpdir(), 'memory-languages-'));
	let bot: MemoryBot;

	beforeAll(async () => {
		mkdirSync(join(languages, 'de'));
		const german = {
			status: { description: 'Was über dich gespeichert ist', heading: '**Dein Gedächtnis**' },
			help: { text: 'Hilfe zu `/{{command}}`.' },
			profile: { nothing: 'Nichts (aus i18next).' }
		};
		writeFileSync(join(languages, 'de', 'memory.json'), JSON.stringify(german));
		bot = await startMemoryBot(
			{ sessionStrings: { de: { 'profile.nothing': 'Nichts (vom Bot selbst).' } } },
			{
				i18n: { defaultLanguageDirectory: languages }
			}
		);
	});

	afterAll(async () => {
		await bot?.stop();
		rmSync(languages, { recursive: true, force: true });
	});

	const ask = (subcommand: string, locale: string) =>
		ephemeralAnswer(bot.fake, bot.fake.slashCommand({ name: 'session', subcommand, user: ALICE.id, channelId: GENERAL, locale }));

	it('THEN the translated description reaches Discord as its German localization', () => {
		const session = bot.fake.commands().find((command) => command.name === 'session') as { options: Record<string, unknown>[] };
		expect(session.options.find((option) => option.name === 'status')).toMatchObject({
			description: 'What is remembered about you, and for how long',
			description_localizations: { de: 'Was über dich gespeichert ist' }
		});
	});

	it('WHEN a German member asks THEN i18next’s texts answer, filled in, and English where it has none', async () => {
		const status = (await ask('status', 'de')).content;
		expect(status.split('\n')[0]).toBe('**Dein Gedächtnis**');
		expect(status).toContain('Privacy level: **minimal**');
		expect((await ask('help', 'de')).content).toBe('Hilfe zu `/session`.');
	});

	it('WHEN the host also gives a text in its plugin options THEN that one wins over i18next', async () => {
		expect((await ask('profile', 'de')).content).toBe('Nichts (vom Bot selbst).');
	});

	it('WHEN a member of a locale i18next does not have asks THEN the answer is English', async () => {
		expect((await ask('status', 'fr')).content.split('\n')[0]).toBe('**Your memory**');
	});
});
