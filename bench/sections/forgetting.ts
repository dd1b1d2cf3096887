import type { MemoryEngine } from '../../src/engine';
import { count } from '../format';
import { progress } from '../log';
import type { ForgettingResult } from '../results';
import { summarize, timed, timedWithBlock } from '../stats';
import { type Channel, channelOf, type ChatWorkload } from '../workload';

/** The server the bot is removed from: its channels, and the turns recorded in each first. */
const PURGE_CHANNELS = 100;
const TURNS_PER_PURGED_CHANNEL = 5;

/**
 * In the seeded channel, after the other latency figures: messages deleted on Discord one at a time
 * (`messagesChanged`, a different message each, spread over the archive), then one member erased whole
 * (`clearAll`, with the longest block of the event loop while it ran), then a server of 100 channels purged
 * (`purgeServer`). On SQLite a deletion empties the
 * write-ahead log at once and leaves the file's rewrite for later (`MEMORY_SQLITE_REWRITE_SECONDS`); an
 * erasure or a purge rewrites it before it resolves.
 */
export async function measureForgetting(
	engine: MemoryEngine,
	workload: ChatWorkload,
	channel: Channel,
	seededIds: readonly string[],
	samples: number,
	label: string
): Promise<ForgettingResult> {
	const step = Math.max(1, Math.floor(seededIds.length / samples));
	const doomed = seededIds.filter((_, at) => at % step === 0).slice(0, samples);
	progress(`${label}: deleting ${count(doomed.length)} messages one at a time, then erasing one member…`);
	const deletions: number[] = [];
	let archivedRemoved = 0;
	for (const id of doomed) {
		const [result, elapsed] = await timed(() =>
			engine.messagesChanged({ serverId: channel.serverId, channelId: channel.channelId, messageIds: [id], kind: 'deleted' })
		);
		deletions.push(elapsed);
		archivedRemoved += result.archivedMessagesRemoved;
	}
	const member = channel.members[1]!;
	const { result: erased, ms: eraseMs, longestBlockMs: eraseBlockMs } = await timedWithBlock(() => engine.clearAll(member.id));

	// A server of its own, 100 channels of a few turns each, then the bot is removed from it.
	const server = 1;
	progress(`${label}: seeding ${PURGE_CHANNELS} channels of another server, then purging it…`);
	for (let at = 0; at < PURGE_CHANNELS; at++) {
		const other = channelOf(server, at);
		for (let turn = 0; turn < TURNS_PER_PURGED_CHANNEL; turn++) await engine.recordTurn(workload.turn(other));
	}
	const [purged, purgeMs] = await timed(() => engine.purgeServer(channelOf(server, 0).serverId));
	return {
		deleteOne: summarize(deletions),
		archivedMessagesRemoved: archivedRemoved,
		eraseMember: { ms: eraseMs, longestBlockMs: eraseBlockMs, archivedMessagesRemoved: erased.archivedMessagesRemoved },
		purgeServer: { ms: purgeMs, channels: purged.channels, archivedMessagesDeleted: purged.archivedMessagesDeleted }
	};
}
