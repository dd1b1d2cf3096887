import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MemoryEngine, MemoryError, resolveConfig, settingWarnings, sqlitePath } from '../../engine';
import type { CliCommand, Values } from './command';
import { checkOptions, unknownCommand } from './commandLine';
import { exportCommand } from './commands/export';
import { inspectCommand } from './commands/inspect';
import { purgeCommand } from './commands/purge';
import { resealCommand } from './commands/reseal';
import { statsCommand } from './commands/stats';
import { sweepCommand } from './commands/sweep';
import { ExitCode, UsageError } from './errors';

const COMMANDS: readonly CliCommand[] = [statsCommand, inspectCommand, exportCommand, purgeCommand, sweepCommand, resealCommand];

const GLOBAL_OPTIONS = {
	store: { type: 'string' },
	namespace: { type: 'string' },
	help: { type: 'boolean', short: 'h', default: false }
} as const;

const GLOBAL_HELP = `Global options:
  --store <url>        The store: sqlite://<file>, redis://…, rediss://…, postgres://… (default:
                       MEMORY_STORE_URL, else sqlite://./data/memory.sqlite)
  --namespace <name>   The key prefix the bot uses (default: MEMORY_STORE_NAMESPACE, else memory)
  -h, --help           Show help`;

const PROGRAM_HELP = `Usage: sapphire-memory <command> [options]

Looks after the store of a bot that uses sapphire-plugin-memory. It reads the same MEMORY_*
environment variables as the bot, so run it where the bot runs, or name the store with --store.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(9)}${command.summary}`).join('\n')}

${GLOBAL_HELP}

Run "sapphire-memory <command> --help" for a command's options.
Exit codes: 0 done, 1 failed (bad setting, store unreachable, nothing confirmed), 2 wrong usage.`;

/** Runs one command line; resolves with the exit code, having printed what to print. Never rejects. */
export async function main(argv: readonly string[]): Promise<number> {
	let command: CliCommand | undefined;
	let engine: MemoryEngine | undefined;
	try {
		const line = readLine(argv);
		command = line.command;
		if (line.help) {
			process.stdout.write(`${command ? `${command.help}\n\n${GLOBAL_HELP}` : PROGRAM_HELP}\n`);
			return ExitCode.Ok;
		}
		if (!command) {
			process.stderr.write(`${PROGRAM_HELP}\n`);
			return ExitCode.Usage;
		}
		const args = negativeNumbersJoined(argv);
		const options = { ...GLOBAL_OPTIONS, ...command.options };
		checkOptions(args, options, command.name);
		const { values, positionals } = parseArgs({
			args,
			options,
			allowPositionals: true,
			strict: true
		});
		if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}".`, command.name);
		const open = async () => (engine = await openEngine(values as Values));
		return await command.run(values as Values, open);
	} catch (error) {
		return report(error, command);
	} finally {
		await engine?.close().catch(() => undefined);
	}
}

/** The command a line names, and whether it asks for help (`--help`, `-h`, `help [command]`). */
function readLine(argv: readonly string[]): { command?: CliCommand; help: boolean } {
	const everyOption = Object.assign({}, GLOBAL_OPTIONS, ...COMMANDS.map((command) => command.options));
	const { values, positionals } = parseArgs({ args: [...argv], options: everyOption, allowPositionals: true, strict: false });
	const asksHelp = positionals[0] === 'help';
	const name = asksHelp ? positionals[1] : positionals[0];
	const command = name === undefined ? undefined : COMMANDS.find((candidate) => candidate.name === name);
	if (name !== undefined && !command)
		throw unknownCommand(
			name,
			COMMANDS.map((candidate) => candidate.name)
		);
	if (!command && !asksHelp && !values.help && argv.length > 0) throw new UsageError('no command given.');
	return { command, help: asksHelp || values.help === true };
}

/**
 * Opens the engine on the store the bot uses: the same configuration resolution, with `--store` and `--namespace`
 * standing in for their variables (an error names the flag), no background sweep and no summarizer. A missing SQLite
 * file is an error, not a new empty store.
 */
async function openEngine(values: Values): Promise<MemoryEngine> {
	const flags = {
		...(typeof values.store === 'string' ? { storeUrl: values.store } : {}),
		...(typeof values.namespace === 'string' ? { storeNamespace: values.namespace } : {})
	};
	for (const warning of settingWarnings(process.env)) process.stderr.write(`${warning}\n`);
	const config = resolveConfig({ ...flags, sweepIntervalMinutes: 0, llmBaseUrl: null, startWithoutStore: false }, process.env, {
		storeUrl: '--store',
		storeNamespace: '--namespace'
	});
	const { storeUrl } = config;
	if (storeUrl.startsWith('sqlite://') && sqlitePath(storeUrl) !== ':memory:' && !existsSync(sqlitePath(storeUrl))) {
		const fromEnvironment = process.env.MEMORY_STORE_URL?.trim() ? `MEMORY_STORE_URL=${storeUrl}` : 'the default store';
		const named = flags.storeUrl === undefined ? fromEnvironment : `--store ${storeUrl}`;
		throw new MemoryError('STORE_UNAVAILABLE', `No memory store at ${sqlitePath(storeUrl)} (${named}); run where the bot runs, or pass --store.`);
	}
	// The settings as resolved here, so the engine reads no variable again (nor warns twice).
	return MemoryEngine.open({ config, env: {}, onStoreHealth: () => undefined });
}

/**
 * The command line with a negative number glued to its option (`--limit -1` → `--limit=-1`): parseArgs would read
 * `-1` as an option of its own and answer with advice about its syntax, where the command's own check says what is wrong.
 */
function negativeNumbersJoined(argv: readonly string[]): string[] {
	const joined: string[] = [];
	for (const arg of argv) {
		const last = joined.at(-1);
		if (/^-\d/.test(arg) && last?.startsWith('--') && !last.includes('=')) joined[joined.length - 1] = `${last}=${arg}`;
		else joined.push(arg);
	}
	return joined;
}

/** One line on standard error, never a stack trace; returns the exit code. */
function report(error: unknown, command: CliCommand | undefined): number {
	const usage =
		error instanceof UsageError || (error instanceof TypeError && String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS'));
	const invalidInput = error instanceof MemoryError && error.code === 'INVALID_INPUT';
	const message = error instanceof Error ? error.message : String(error);
	process.stderr.write(`sapphire-memory: ${message}\n`);
	if (usage || invalidInput) {
		const topic = error instanceof UsageError ? error.command : command?.name;
		process.stderr.write(`Run "sapphire-memory ${topic ? `${topic} ` : ''}--help" for usage.\n`);
		return ExitCode.Usage;
	}
	return ExitCode.Failed;
}
