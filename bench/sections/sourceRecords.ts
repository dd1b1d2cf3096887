import type { MemoryEngine } from '../../src/engine';
import { count, ms, table, times } from '../format';
import { progress } from '../log';
import type { BackendLatencyResult, SourceRecordsResult } from '../results';
import { summarize, timed } from '../stats';
import type { Channel, ChatWorkload } from '../workload';

/**
 * Turns of the channel, one at a time, alternating: one recorded after another member's context was built (nothing to
 * keep), the next after its own member's, so that both kinds meet the same store, the same noise and the same work a
 * context leaves behind. Only recordTurn is timed.
 */
export async function measureSourceRecords(engine: MemoryEngine, workload: ChatWorkload, channel: Channel, samples: number, label: string) {
	progress(`${label}: ${count(samples * 2)} turns, every other one after its context (what the reply drew on is kept)…`);
	const alone: number[] = [];
	const afterContext: number[] = [];
	for (let at = 0; at < samples * 2; at++) {
		const member = channel.members[at % channel.members.length]!;
		const turn = workload.turn(channel, member);
		const withContext = at % 2 === 1;
		// A context is built before each turn, so that what it leaves running meets both kinds: the member's own, or another's.
		const other = channel.members[(at + 1) % channel.members.length]!;
		await engine.buildContext(workload.request(channel, withContext ? member : other));
		const [, elapsed] = await timed(() => engine.recordTurn(turn));
		(withContext ? afterContext : alone).push(elapsed);
	}
	return { alone: summarize(alone), afterContext: summarize(afterContext) } satisfies SourceRecordsResult;
}

export function renderSourceRecords(results: BackendLatencyResult[]): string {
	const rows = results.flatMap(({ backend, sourceRecords }) =>
		sourceRecords
			? [
					[
						backend,
						ms(sourceRecords.alone.p50),
						ms(sourceRecords.afterContext.p50),
						times(sourceRecords.afterContext.p50 / sourceRecords.alone.p50),
						ms(sourceRecords.alone.p99),
						ms(sourceRecords.afterContext.p99)
					]
				]
			: []
	);
	return table(
		'1f. What a reply drew on: recordTurn with and without the record of its context’s sources, times in ms',
		['backend', 'alone p50', 'after ctx p50', 'ratio', 'alone p99', 'after ctx p99'],
		rows,
		[
			'Turns of the latency channel, alternating: one after another member’s context was built (alone: nothing to keep), the',
			'next after its own member’s (not timed), whose sources recordTurn then keeps under the reply (ids only, in the turn’s own batch).'
		]
	);
}
