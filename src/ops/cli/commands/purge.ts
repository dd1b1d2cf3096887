import { createInterface } from 'node:readline/promises';
import type { MemoryEngine } from '../../../engine';
import { type CliCommand, discordId, jsonOption, print, printJson } from '../command';
import { UsageError } from '../errors';
import { rows } from '../format';

export const purgeCommand: CliCommand = {
	name: 'purge',
	summary: 'Erase everything of a member (as /session clear scope:all does) or of a server',
	help: `Usage: sapphire-memory purge (--user <id> | --server <id>) [--yes] [--json]

--user runs memory.clearAll(<id>): the member's short-term memory, the archived messages they wrote and
the personas' replies to them, summaries built from them, their profile and topic notes; other members'
messages stay. Capture never stores again what they wrote before now.
--server runs memory.purgeServer(<id>), as when the bot is removed from a server: every channel's memory
and archive, its members' conversations there, its directories and settings. Asks for confirmation on a
terminal.

Options:
  --user <id>     A member's Discord user id
  --server <id>   A server's (guild's) Discord id
  --yes           Do not ask (required when standard input is not a terminal)
  --json          Print what was deleted as JSON`,
	options: { user: { type: 'string' }, server: { type: 'string' }, yes: { type: 'boolean', default: false }, ...jsonOption },
	async run(values, open) {
		const userId = discordId(values, 'user', 'purge') ?? null;
		const serverId = discordId(values, 'server', 'purge') ?? null;
		if ((userId === null) === (serverId === null)) throw new UsageError('purge needs one of --user <id> or --server <id>.', 'purge');
		if (!values.yes && !process.stdin.isTTY)
			throw new UsageError('purge erases data: pass --yes to confirm when standard input is not a terminal.', 'purge');
		const memory = await open();
		if (!values.yes && !(await confirmed(memory, userId, serverId))) {
			process.stderr.write('Nothing was erased.\n');
			return 1;
		}
		if (serverId !== null) {
			const result = await memory.purgeServer(serverId);
			if (values.json) printJson(result);
			else
				print(
					[
						`Erased everything of server ${serverId}:`,
						rows([
							['channels', result.channels],
							['short-term entries deleted', result.entriesDeleted],
							['archived messages deleted', result.archivedMessagesDeleted]
						])
					].join('\n')
				);
			return 0;
		}
		const result = await memory.clearAll(userId!);
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

/** Asks on the terminal; resolves true when the operator typed yes. */
async function confirmed(memory: MemoryEngine, userId: string | null, serverId: string | null): Promise<boolean> {
	let question =
		`Erase everything stored of server ${serverId} (every channel's memory and archive, its members' conversations there)? ` +
		`Type "yes" to confirm: `;
	if (userId !== null) {
		const status = await memory.status(userId);
		const held =
			`${status.shortTermEntries} short-term conversations, ${status.archivedMessages} archived messages, ` +
			`${status.hasProfile ? 'a profile' : 'no profile'}, ${status.topics} topic notes`;
		question = `Erase everything stored about user ${userId} (${held}) and their words in shared memories? Type "yes" to confirm: `;
	}
	const prompt = createInterface({ input: process.stdin, output: process.stderr });
	const answer = await prompt.question(question);
	prompt.close();
	return /^y(es)?$/i.test(answer.trim());
}
