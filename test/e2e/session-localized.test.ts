import '../../src/register';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_STRINGS } from '../../src/plugin/sessionStrings';
import { ALICE, ephemeralAnswer, GENERAL, type MemoryBot, startMemoryBot } from '../support/memory-bot';

/** Options and subcommands as the fake Discord recorded the command's registration. */
interface RegisteredPart {
	name: string;
	description: string;
	name_localizations?: Record<string, string>;
	description_localizations?: Record<string, string>;
	options?: RegisteredPart[];
	choices?: { name: string; name_localizations?: Record<string, string>; value: string }[];
}

describe('GIVEN a bot that already has a /session: the command renamed /memory, with French texts', () => {
	let bot: MemoryBot;

	beforeAll(async () => {
		bot = await startMemoryBot({
			sessionCommandName: 'memory',
			sessionStrings: {
				fr: {
					'command.name': 'memoire',
					'command.description': 'Voir et gérer ce dont ce bot se souvient',
					'status.name': 'etat',
					'status.description': 'Ce dont on se souvient de toi',
					'clear.scope.all': 'tout ce qui me concerne',
					'status.heading': '**Ta mémoire**',
					'help.text': 'Tape `/{{command}} etat` pour voir ta mémoire.'
				},
				'en-US': { 'status.heading': '**What I remember of you**' }
			}
		});
	});

	afterAll(() => bot?.stop());

	const registered = () => bot.fake.commands().find((command) => command.name === 'memory') as unknown as RegisteredPart;
	const sub = (name: string) => registered().options!.find((option) => option.name === name)!;
	const ask = (subcommand: string, locale: string) =>
		ephemeralAnswer(bot.fake, bot.fake.slashCommand({ name: 'memory', subcommand, user: ALICE.id, channelId: GENERAL, locale }));

	it('THEN Discord gets /memory and no /session, with the French names (its own too) and descriptions as localizations', () => {
		expect(bot.fake.commands().map((command) => command.name)).not.toContain('session');
		expect(registered()).toMatchObject({
			name_localizations: { fr: 'memoire' },
			description: SESSION_STRINGS['command.description'],
			description_localizations: { fr: 'Voir et gérer ce dont ce bot se souvient' }
		});
		// The name Discord sends back stays the English one: only what members see is localized.
		expect(sub('status')).toMatchObject({
			name: 'status',
			name_localizations: { fr: 'etat' },
			description_localizations: { fr: 'Ce dont on se souvient de toi' }
		});
		const scope = sub('clear').options!.find((option) => option.name === 'scope')!;
		expect(scope.choices!.find((choice) => choice.value === 'all')).toMatchObject({
			name: 'everything about me',
			name_localizations: { fr: 'tout ce qui me concerne' }
		});
	});

	it('WHEN a French member asks /memory status THEN the answer is in French where the host translated it, English elsewhere', async () => {
		const { content } = await ask('status', 'fr');

		expect(content.split('\n')[0]).toBe('**Ta mémoire**');
		expect(content).toContain('Privacy level: **minimal**');
	});

	it('WHEN a member of another locale asks THEN the host’s en-US texts answer, as the default', async () => {
		expect((await ask('status', 'ja')).content.split('\n')[0]).toBe('**What I remember of you**');
		expect((await ask('status', 'en-GB')).content.split('\n')[0]).toBe('**What I remember of you**');
	});

	it('WHEN a French member asks /memory help THEN the text names the command as French members see it, others as the host renamed it', async () => {
		expect((await ask('help', 'fr')).content).toBe('Tape `/memoire etat` pour voir ta mémoire.');
		expect((await ask('help', 'de')).content).toContain('`/memory clear scope:all`: forget everything about you');
	});
});

describe('GIVEN the English strings table', () => {
	it('THEN no key is the beginning of another, so an i18next file can nest them all ({ "status": { "heading": … } })', () => {
		const keys = Object.keys(SESSION_STRINGS);
		expect(keys.filter((key) => keys.some((other) => other.startsWith(`${key}.`)))).toEqual([]);
	});
});
