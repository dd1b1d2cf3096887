import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import type { MemoryEngine } from '../../src/engine';
import { SqliteAdapter } from '../../src/engine/store/SqliteAdapter';
import { slowStore, type SlowStoreControl } from '../../tools/slow-store/SlowStore';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import type { BenchPlan } from '../options';
import type { SessionOperationResult, SessionResult } from '../results';
import { timed } from '../stats';
import { type Channel, channelOf, ChatWorkload, openEngine } from '../workload';

/** Where the measured member talks: 12 channels over 3 servers (channel ids unique across them), and a DM. */
const SERVERS = 3;
const CHANNELS_PER_SERVER = 4;

/** The `/session` operations measured, each on a fresh copy of the seeded store. */
const OPERATIONS: readonly [string, (memory: MemoryEngine, member: string, channel: Channel) => Promise<unknown>][] = [
	['status', (memory, member, channel) => memory.status(member, { serverId: channel.serverId, channelId: channel.channelId })],
	['export', (memory, member) => memory.exportUser(member)],
	['clear', (memory, member) => memory.clearShortTerm(member)],
	['clear scope:all', (memory, member) => memory.clearAll(member)],
	['privacy full', (memory, member) => memory.setUserSettings(member, { privacyLevel: 2 })],
	['wipe-channel', (memory, _, channel) => memory.wipeChannel(channel.serverId, channel.channelId)],
	['purge server', (memory, _, channel) => memory.purgeServer(channel.serverId)]
];

/**
 * Section 1d: the `/session` operations on a store that answers every call `delayMs` later, as a managed Redis or
 * PostgreSQL a few milliseconds away does (the engine's SQLite store wrapped in tools/slow-store), for members of
 * several sizes: how many store calls each makes, and how long it takes. Each size is seeded once without delay
 * (the member's turns over 12 channels of 3 servers, with other members talking around them), then each operation
 * runs on a copy of that file.
 */
export async function runSession(plan: BenchPlan): Promise<SessionResult> {
	const { delayMs, memberTurns } = plan.session;
	const sizes: SessionResult['sizes'] = [];
	for (const turns of memberTurns) {
		const directory = mkdtempSync(join(tmpdir(), 'memory-bench-session-'));
		try {
			const seeded = join(directory, 'seeded.sqlite');
			const { member, channel } = await seed(seeded, turns);
			const operations: SessionOperationResult[] = [];
			for (const [name, run] of OPERATIONS) {
				const file = join(directory, `${operations.length}.sqlite`);
				copyFileSync(seeded, file);
				const { engine, control } = await openSlow(file);
				try {
					control.delayMs = delayMs;
					control.reset();
					const [, ms] = await timed(() => run(engine, member, channel));
					operations.push({ operation: name, calls: control.total(), ms });
					progress(`session: ${count(turns)} turns, ${name}: ${control.total()} calls, ${ms.toFixed(0)} ms`);
				} finally {
					control.delayMs = 0;
					await engine.close();
				}
			}
			sizes.push({ memberTurns: turns, operations });
		} finally {
			rmSync(directory, { recursive: true, force: true });
		}
	}
	return { delayMs, sizes };
}

async function openSlow(file: string): Promise<{ engine: MemoryEngine; control: SlowStoreControl }> {
	const { store, control } = slowStore(new SqliteAdapter(file), 0);
	const keyv = new Keyv({ store: store as never, namespace: 'memory' });
	const workload = new ChatWorkload(new ChatCorpus(505));
	const engine = await openEngine('sqlite://unused', workload.clock, {}, keyv);
	return { engine, control };
}

/** The member's `turns` turns, round-robin over the channels, each after another member's turn in the same channel. */
async function seed(file: string, turns: number): Promise<{ member: string; channel: Channel }> {
	const workload = new ChatWorkload(new ChatCorpus(404));
	const { store } = slowStore(new SqliteAdapter(file), 0);
	const engine = await openEngine('sqlite://unused', workload.clock, {}, new Keyv({ store: store as never, namespace: 'memory' }));
	const channels = Array.from({ length: SERVERS * CHANNELS_PER_SERVER }, (_, at) => channelOf(Math.floor(at / CHANNELS_PER_SERVER), 500 + at));
	// The measured member is a member of each server: the same id in all three.
	const member = channels[0]!.members[0]!;
	const counter = new ProgressCounter(`session: seeding a member of ${count(turns)} turns`, turns, 'turns');
	try {
		for (let at = 0; at < turns; at++) {
			const channel = channels[at % channels.length]!;
			await engine.recordTurn(workload.turn(channel, channel.members[1 + (at % (channel.members.length - 1))]));
			await engine.recordTurn(workload.turn(channel, member));
			counter.update(at + 1);
		}
	} finally {
		await engine.close();
	}
	return { member: member.id, channel: channels[0]! };
}
