import { count, ms, percent, table } from '../format';
import type { ShardsResult } from '../results';
import { CHANNELS_PER_SERVER, MAX_TURN_MESSAGES, NEW_MEMBER_SHARE, SERVERS_PER_SHARD, TRAVELLER_SHARE, TRAVELLERS } from './shardWork';

/** The shards section: per backend, the turns, compare-and-sets, retries, keys written and what was lost; then the shared keys by kind. */
export function renderShards(results: readonly ShardsResult[]): string {
	const notes: string[] = [];
	const rows = results.flatMap((result) => {
		if (result.skipped || result.error) {
			notes.push(`${result.backend}: ${result.skipped ? `skipped: ${result.skipped}` : `failed: ${result.error!.split('\n')[0]!}`}`);
			return [];
		}
		const hot = Object.entries(result.hotPatterns ?? {}).map(([pattern, keys]) => `${pattern} (${count(keys)})`);
		if (hot.length) notes.push(`${result.backend}: hot keys, digits as #: ${hot.join(', ')}`);
		if (result.failedTurns) notes.push(`${result.backend}: ${count(result.failedTurns)} turns failed: ${result.firstError ?? ''}`);
		const lost = result.lost!;
		return [
			[
				result.backend,
				count(result.turns!),
				`${result.seconds!.toFixed(1)} s`,
				ms(result.recordTurn!.p50),
				ms(result.recordTurn!.p99),
				count(result.compareAndSets!),
				count(result.retries!),
				result.retriesPerTurn!.toFixed(4),
				count(result.keysWritten!),
				count(result.sharedKeys!),
				count(result.hotKeys!),
				count(result.hotCompareAndSet!),
				count(lost.turns),
				count(lost.messages),
				count(lost.conversations)
			]
		];
	});
	const processes = results.find((result) => result.processes)?.processes ?? 0;
	const measured = results.filter((result) => result.kinds?.length);
	const kinds = measured.flatMap((result) =>
		result.kinds!.map((row) => [
			result.backend,
			row.kind,
			count(row.keys),
			count(row.hot),
			count(row.hotCompareAndSet),
			count(row.memberOwn),
			count(row.writes),
			count(row.retries),
			row.operations.join(' ')
		])
	);
	const checked = results.find((result) => result.lost)?.lost;
	return [
		table(
			`2d. Shards: ${processes} processes recording at once on one store, each over servers of its own; times in ms`,
			[
				'backend',
				'turns',
				'time',
				'record p50',
				'record p99',
				'CAS writes',
				'retries',
				'retries/turn',
				'keys',
				'shared',
				'hot',
				'hot CAS',
				'lost turns',
				'lost messages',
				'lost conversations'
			],
			rows,
			[
				`Each process: ${CHANNELS_PER_SERVER * SERVERS_PER_SHARD} channels in ${SERVERS_PER_SHARD} servers of its own, one turn at a time ` +
					`(1 to ${MAX_TURN_MESSAGES} member messages and a reply);`,
				`a message's author is new to the server (${percent(NEW_MEMBER_SHARE)}), one of ${TRAVELLERS} members who talk in servers of ` +
					`every shard (${percent(TRAVELLER_SHARE)}), else returning.`,
				'The processes start their turns together, after a barrier.',
				'CAS writes: conditional writes on the store adapter (each key of a many-key compare-and-set); retries: those that found the ' +
					'key changed.',
				'keys: written during the turns by any process; shared: by more than one; hot: by every process, keys naming one of the ' +
					'members who talk in every shard',
				'(their directory, author index) aside; hot CAS: of those, written by a compare-and-set, not only by blind adds to a native ' +
					'set (which never retry, but still land on one key from every process).',
				`lost: afterwards one engine exports each of the ${count(checked?.members ?? 0)} members; a message of theirs missing from ` +
					"their archives, or a channel where a turn was theirs missing from their directory's conversations.",
				...notes
			]
		),
		table(
			'Keys written by more than one shard process, by kind',
			['backend', 'kind', 'keys', 'hot', 'hot CAS', 'member own', 'writes', 'retries', 'written by'],
			kinds
		)
	].join('\n');
}
