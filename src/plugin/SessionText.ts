import { container } from '@sapphire/framework';
import { Locale } from 'discord.js';
import { pluginOptions } from './pluginOptions';
import { SESSION_STRINGS, type SessionStringKey } from './sessionStrings';

/** What the plugin reads of @sapphire/plugin-i18next's `container.i18n`, when the host uses it (an optional peer). */
interface I18nLike {
	languages: ReadonlyMap<string, (key: string, options: Record<string, unknown>) => string>;
}

/** Values filled into a text's `{{name}}` places. */
export type TextValues = Record<string, string | number>;

const DISCORD_LOCALES = new Set<string>(Object.values(Locale));

/**
 * The texts of `/session` in one Discord locale. Each comes from the host's `sessionStrings` for that locale (or its
 * language: `pt` for `pt-BR`), else from its @sapphire/plugin-i18next translation (namespace `memory`), else from the
 * host's `en-US` texts, else from the English table (sessionStrings.ts).
 */
export class SessionText {
	public constructor(private readonly locale: string | null) {}

	/** The text of `key` with its `{{name}}` places filled in; `{{command}}` is the command's name. */
	public get(key: SessionStringKey, values: TextValues = {}): string {
		const all: TextValues = { command: SessionText.commandName(this.locale), ...values };
		const template = (this.locale === null ? undefined : translated(this.locale, key, all)) ?? overrides('en-US')?.[key] ?? SESSION_STRINGS[key];
		return template.replace(/\{\{(\w+)\}\}/g, (place, name: string) => (name in all ? String(all[name]) : place));
	}

	/**
	 * The command's name: `session`, unless the host named it otherwise (`sessionCommandName`); in `locale`, its name there
	 * when the host translated `command.name`, as members of that locale see it in their command list.
	 */
	public static commandName(locale: string | null = null): string {
		return (locale === null ? undefined : translated(locale, 'command.name', {})) ?? pluginOptions().sessionCommandName;
	}

	/** Discord's localizations of a name or description: each locale the host's texts or its i18next translations cover. */
	public static localizations(key: SessionStringKey): Partial<Record<Locale, string>> {
		const locales = new Set([...Object.keys(pluginOptions().sessionStrings), ...(i18n()?.languages.keys() ?? [])]);
		const entries = [...locales]
			.filter((locale) => DISCORD_LOCALES.has(locale))
			.map((locale) => [locale, translated(locale, key, { command: SessionText.commandName(locale) })] as const)
			.filter((entry): entry is readonly [string, string] => entry[1] !== undefined);
		return Object.fromEntries(entries);
	}
}

/** The host's own texts for `locale`. */
function overrides(locale: string) {
	return pluginOptions().sessionStrings[locale];
}

/** The text the host gave or translated for `locale` (or its language), unfilled for its own table and filled by i18next. */
function translated(locale: string, key: SessionStringKey, values: TextValues): string | undefined {
	const language = locale.split('-')[0]!;
	const own = overrides(locale)?.[key] ?? overrides(language)?.[key];
	if (own !== undefined) return own;
	const t = i18n()?.languages.get(locale) ?? i18n()?.languages.get(language);
	// i18next fills `{{name}}` itself; an empty default tells a missing key from a translation.
	const text = t?.(`memory:${key}`, { ...values, defaultValue: '' });
	return text ? text : undefined;
}

function i18n(): I18nLike | undefined {
	return (container as { i18n?: I18nLike }).i18n;
}
