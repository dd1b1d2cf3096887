import { KEY_KINDS, type KeyKind } from '../../../engine';
import { type CliCommand, jsonOption, print, printJson } from '../command';
import { bytes, count, rows, time } from '../format';

export const statsCommand: CliCommand = {
	name: 'stats',
	summary: 'Keys by kind, the store’s size, the archive’s span',
	help: `Usage: sapphire-memory stats [--json]

Counts the store's keys by kind (short-term entries, archive chunks and markers, profiles, topics,
settings, indexes, registries…), tells the store's size and the times of the oldest and newest
archived messages. It reads the whole namespace.

Options:
  --json   Print the counts as JSON`,
	options: jsonOption,
	async run(values, open) {
		const memory = await open();
		const inventory = await memory.inventory();
		// An empty report would hide the likelier cause: a namespace typed wrong.
		if (inventory.totalKeys === 0) {
			throw new Error(
				`The namespace "${inventory.namespace}" holds no keys in this ${inventory.storage} store: nothing is stored there yet, or the ` +
					'namespace is mistyped (--namespace, MEMORY_STORE_NAMESPACE; a bot uses "memory" unless it sets one).'
			);
		}
		if (values.json) {
			printJson(inventory);
			return 0;
		}
		const size = inventory.storageBytes;
		const parts = size
			? Object.entries(size.parts)
					.map(([part, value]) => `${part} ${bytes(value)}`)
					.join(' + ')
			: '';
		print(
			[
				`Store: ${inventory.storage}, namespace "${inventory.namespace}"`,
				`Size: ${size ? `${bytes(size.total)} (${parts}; ${size.note})` : 'not measured on this backend'}; data ` +
					`${bytes(inventory.dataBytes)} in ${count(inventory.totalKeys)} keys`,
				`Archive: ${count(inventory.archive.messages)} messages in ${count(inventory.archive.scopes)} scopes, oldest ` +
					`${time(inventory.archive.oldest)}, newest ${time(inventory.archive.newest)}`,
				`Last sweep: ${inventory.lastSweepAt === null ? 'never' : time(inventory.lastSweepAt)}`,
				'',
				'Keys by kind:',
				rows((Object.entries(KEY_KINDS) as [KeyKind, string][]).map(([kind, label]) => [label, inventory.keys[kind]]))
			].join('\n')
		);
		return 0;
	}
};
