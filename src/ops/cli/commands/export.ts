import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type CliCommand, jsonText, print, required } from '../command';

export const exportCommand: CliCommand = {
	name: 'export',
	summary: 'A member’s data as JSON, as /session export gives it',
	help: `Usage: sapphire-memory export --user <id> [--out <file>]

Prints memory.exportUser(<id>): everything stored about the member and nothing about anyone else,
the JSON file /session export attaches.

Options:
  --user <id>    The member's Discord user id
  --out <file>   Write the JSON to this file instead of standard output`,
	options: { user: { type: 'string' }, out: { type: 'string' } },
	async run(values, open) {
		const userId = required(values, 'user', 'export');
		// Before the store is opened: a file that cannot be written is told first, and the store is not read for nothing.
		if (typeof values.out === 'string') checkWritable(values.out);
		const exported = await (await open()).exportUser(userId);
		const json = `${jsonText(exported)}\n`;
		if (typeof values.out !== 'string') {
			print(json);
			return 0;
		}
		try {
			writeFileSync(values.out, json);
		} catch (error) {
			throw new Error(`cannot write the export to ${values.out}: ${(error as Error).message}.`);
		}
		process.stderr.write(`Wrote the export of user ${userId} to ${values.out}.\n`);
		return 0;
	}
};

/** Fails naming the directory `--out` needs when it is missing or is a file, as the error of writing would not. */
function checkWritable(out: string): void {
	const directory = dirname(resolve(out));
	if (!existsSync(directory)) throw new Error(`no directory ${directory} to write ${out} in: create it first, or name another --out.`);
	if (!statSync(directory).isDirectory()) throw new Error(`${directory} is not a directory, so ${out} cannot be written.`);
	if (existsSync(out) && statSync(out).isDirectory()) throw new Error(`--out ${out} is a directory: name a file in it.`);
}
