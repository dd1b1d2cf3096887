import { type CliCommand, jsonOption, print, printJson } from '../command';
import { rows } from '../format';

export const sweepCommand: CliCommand = {
	name: 'sweep',
	summary: 'Delete what has expired, now',
	help: `Usage: sapphire-memory sweep [--json]

Runs memory.sweep(): deletes short-term entries past their TTL, archived messages past
MEMORY_ARCHIVE_RETENTION_DAYS and what was derived from them, and prints what went. A bot sweeps by
itself every MEMORY_SWEEP_INTERVAL_MINUTES; running one now is safe while it runs.

Options:
  --json   Print the result as JSON`,
	options: jsonOption,
	async run(values, open) {
		const result = await (await open()).sweep();
		if (values.json) {
			printJson(result);
			return 0;
		}
		print(
			[
				`Swept in ${result.durationMs} ms:`,
				rows([
					['short-term entries deleted', result.entriesDeleted],
					['directory listings deleted', result.listingsDeleted],
					['directories deleted', result.directoriesDeleted],
					['archive chunks deleted', result.chunksDeleted],
					['archived messages deleted', result.archivedMessagesDeleted],
					['markers deleted', result.markersDeleted],
					['archives deleted', result.archivesDeleted],
					['archives located', result.archivesLocated],
					['author listings deleted', result.authorListingsDeleted],
					['author indexes deleted', result.authorIndexesDeleted],
					['forgotten message ids dropped', result.forgottenIdsDeleted]
				])
			].join('\n')
		);
		return 0;
	}
};
