import { writeFileSync } from 'node:fs';
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
		const exported = await (await open()).exportUser(userId);
		const json = `${jsonText(exported)}\n`;
		if (typeof values.out !== 'string') {
			print(json);
			return 0;
		}
		writeFileSync(values.out, json);
		process.stderr.write(`Wrote the export of user ${userId} to ${values.out}.\n`);
		return 0;
	}
};
