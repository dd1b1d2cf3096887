import { type CliCommand, jsonOption, print, printJson } from '../command';
import { rows } from '../format';

export const resealCommand: CliCommand = {
	name: 'reseal',
	summary: 'Seal every value again with MEMORY_ENCRYPTION_KEY, so previous keys can be dropped',
	help: `Usage: sapphire-memory reseal [--json]

Runs memory.reseal(): every value still sealed with one of MEMORY_ENCRYPTION_PREVIOUS_KEYS, or not sealed
at all, is sealed again with MEMORY_ENCRYPTION_KEY (when it expires is kept). To change keys: give the bot
the new key as MEMORY_ENCRYPTION_KEY and the old one in MEMORY_ENCRYPTION_PREVIOUS_KEYS, run this with the
same variables (the bot may run meanwhile), then drop the old key. It reads the whole namespace.

Options:
  --json   Print the counts as JSON`,
	options: jsonOption,
	async run(values, open) {
		const result = await (await open()).reseal();
		if (values.json) {
			printJson(result);
			return 0;
		}
		print(
			[
				'Resealed the store with MEMORY_ENCRYPTION_KEY:',
				rows([
					['values sealed again', result.resealed],
					['values already sealed with it', result.current],
					['values that did not open (left as they are)', result.damaged]
				])
			].join('\n')
		);
		return 0;
	}
};
