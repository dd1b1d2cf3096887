import type { ParseArgsConfig } from 'node:util';
import type { MemoryEngine } from '../../engine';
import { UsageError } from './errors';

/** The parsed options of a command line. */
export type Values = Record<string, string | boolean | undefined>;

/** One subcommand of `sapphire-memory`. */
export interface CliCommand {
	name: string;
	/** One line, for the program's help. */
	summary: string;
	/** The command's `--help`, without the global options. */
	help: string;
	options: NonNullable<ParseArgsConfig['options']>;
	/** Checks the options (throwing a {@link UsageError}) before the store is opened, then runs; resolves with the exit code. */
	run(values: Values, open: () => Promise<MemoryEngine>): Promise<number>;
}

/** `--json`: machine-readable output instead of text. */
export const jsonOption = { json: { type: 'boolean', default: false } } as const;

/** A Discord id (a snowflake: 17 to 20 digits), as every id the bot stores is. */
const SNOWFLAKE = /^\d{17,20}$/;

/** The Discord id an option names, undefined when it is not given; a usage error when it is not a snowflake. */
export function discordId(values: Values, name: string, command: string): string | undefined {
	const value = values[name];
	if (typeof value !== 'string') return undefined;
	if (!SNOWFLAKE.test(value.trim()))
		throw new UsageError(`--${name} takes a Discord id (17 to 20 digits, e.g. 482910573615284736), not "${value.slice(0, 40)}".`, command);
	return value.trim();
}

/** A required Discord id option, or a usage error naming it. */
export function required(values: Values, name: string, command: string): string {
	const id = discordId(values, name, command);
	if (id === undefined) throw new UsageError(`${command} needs --${name} <id>.`, command);
	return id;
}

/** Writes one block of text to standard output. */
export function print(text: string): void {
	process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Characters JSON leaves as they are that a terminal acts on: C1 controls (U+009B starts an escape sequence as ESC [ does),
 * bidirectional controls (they reorder what the screen shows), and the line and paragraph separators.
 */
const JSON_UNSAFE = /[\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]/g;

/** `value` as indented JSON, every character a terminal would act on escaped (`JSON.stringify` escapes C0 controls itself). */
export function jsonText(value: unknown): string {
	return JSON.stringify(value, null, 2).replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Writes a value as indented JSON, safe to print (see {@link jsonText}). */
export function printJson(value: unknown): void {
	print(jsonText(value));
}
