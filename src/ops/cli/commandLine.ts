import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestName } from '../../engine';
import { UsageError } from './errors';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `unknown command "stat": did you mean stats?`: the command a mistyped name most likely meant, when one is close. */
export function unknownCommand(name: string, commands: readonly string[]): UsageError {
	const closest = closestName(name, commands);
	return new UsageError(`unknown command "${name}"${closest?.likelyTypo ? `: did you mean ${closest.name}?` : '.'}`);
}

/**
 * Checks a command's options in the CLI's own words, before parseArgs reads them strictly: an option the command does not
 * take (with the closest one it does), an option without its value, a value given to a switch.
 */
export function checkOptions(args: string[], options: Options, command: string): void {
	const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
	for (const token of tokens) {
		if (token.kind !== 'option') continue;
		const spec = options[token.name];
		if (!spec) {
			const closest = closestName(token.name, Object.keys(options));
			const hint = closest?.likelyTypo ? `; did you mean --${closest.name}?` : '.';
			throw new UsageError(`${command} has no option ${token.rawName}${hint}`, command);
		}
		const option = `--${token.name}`;
		if (spec.type === 'boolean' && token.inlineValue) throw new UsageError(`${option} takes no value.`, command);
		if (spec.type !== 'string') continue;
		if (token.value === undefined) throw new UsageError(`${option} needs a value.`, command);
		// parseArgs would take the next option as this one's value, or refuse it as ambiguous.
		if (!token.inlineValue && token.value.startsWith('-') && !/^-\d/.test(token.value))
			throw new UsageError(`${option} needs a value, not the option ${token.value}.`, command);
	}
}
