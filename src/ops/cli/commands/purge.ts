import { createInterface } from 'node:readline/promises';
import { type CliCommand, jsonOption, print, printJson, required } from '../command';
import { UsageError } from '../errors';
import { rows } from '../format';

export const purgeCommand: CliCommand = {
	name: 'purge',
	summary: 'Erase everything of a member, as /session clear scope:all does',
	help: `Usage: sapphire-memory purge --user <id> [--yes] [--json]

Runs memory.clearAll(<id>): the member's short-term memory, the archived messages they wrote,
summaries built from them, their profile and topic notes; other members' messages stay. Capture
never stores again what they wrote before now. Asks for confirmation on a terminal.

Options:
  --user <id>   The member's Discord user id
  --yes         Do not ask (required when standard input is not a terminal)
  --json        Print what was deleted as JSON`,
	options: { user: { type: 'string' }, yes: { type: 'boolean', default: false }, ...jsonOption },
	async run(values, open) {
		const userId = required(values, 'user', 'purge');
		if (!values.yes && !process.stdin.isTTY)
			throw new UsageError('purge erases data: pass --yes to confirm when standard input is not a terminal.', 'purge');
		const memory = await open();
		if (!values.yes) {
			const status = await memory.status(userId);
			const held =
				`${status.shortTermEntries} short-term conversations, ${status.archivedMessages} archived messages, ` +
				`${status.hasProfile ? 'a profile' : 'no profile'}, ${status.topics} topic notes`;
			const prompt = createInterface({ input: process.stdin, output: process.stderr });
			const answer = await prompt.question(
				`Erase everything stored about user ${userId} (${held}) and their words in shared memories? Type "yes" to confirm: `
			);
			prompt.close();
			if (!/^y(es)?$/i.test(answer.trim())) {
				process.stderr.write('Nothing was erased.\n');
				return 1;
			}
		}
		const result = await memory.clearAll(userId);
		if (values.json) {
			printJson(result);
			return 0;
		}
		print(
			[
				`Erased everything of user ${userId}:`,
				rows([
					['own short-term entries deleted', result.entriesDeleted],
					['messages removed from shared memories', result.messagesRemoved],
					['archived messages removed', result.archivedMessagesRemoved],
					['summaries dropped', result.summariesDropped],
					['profile deleted', result.profileDeleted ? 'yes' : 'no'],
					['topic notes deleted', result.topicsDeleted]
				])
			].join('\n')
		);
		return 0;
	}
};
