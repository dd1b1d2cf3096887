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

/** Writes a value as indented JSON. */
export function printJson(value: unknown): void {
	print(JSON.stringify(value, null, 2));
}
