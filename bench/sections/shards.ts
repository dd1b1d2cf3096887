import { type ChildProcess, fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { keyKind, KEY_KINDS } from '../../src/engine/store/keyKinds';
import { type BenchStore, prepareStore } from '../backends';
import { type ChildProgram, childProgram } from '../child';
import { count } from '../format';
import { progress } from '../log';
import type { BenchPlan } from '../options';
import type { ShardKeyKind, ShardsResult } from '../results';
import { summarize } from '../stats';
import { BenchClock, openEngine } from '../workload';
import { errorText } from './shared';
import type { ShardArguments, ShardMessage, ShardReport } from './shardWork';

/** Exports read at once by the check after the run. */
const CHECKS_IN_FLIGHT = 8;

/**
 * Section `shards`, per backend: shard processes (`plan.shards.processes`, as Discord's shards) open the engine on one
 * store and namespace, wait at a barrier, then each records its turns over servers of its own, members new and
 * returning, some of them talking in servers of every shard (shardWork.ts). Each counts, on its store adapter, the keys
 * it writes and its compare-and-sets, and which of them found the key changed (shardWrites.ts). Afterwards one engine
 * exports every member and checks that their archives hold each of their messages and their directory each conversation.
 */
export async function runShards(plan: BenchPlan): Promise<ShardsResult[]> {
	const results: ShardsResult[] = [];
	const program = await childProgram('shardChild.ts');
	try {
		for (const backend of plan.backends) {
			// The same file and driver as `sqlite`: the other driver adds nothing to what processes share.
			if (backend === 'keyv-sqlite') continue;
			const prepared = await prepareStore(backend);
			if (prepared.skipped !== undefined) {
				progress(`shards: ${backend}: skipped: ${prepared.skipped}`);
				results.push({ backend, skipped: prepared.skipped });
				continue;
			}
			try {
				results.push(await measureBackend(program, prepared.store, plan));
			} catch (error) {
				progress(`shards: ${backend}: failed: ${errorText(error)}`);
				results.push({ backend, error: errorText(error) });
			} finally {
				await prepared.store.dispose().catch((error: unknown) => progress(`${backend}: cleaning up failed: ${errorText(error)}`));
			}
		}
	} finally {
		program.cleanup();
	}
	return results;
}

async function measureBackend(program: ChildProgram, store: BenchStore, plan: BenchPlan): Promise<ShardsResult> {
	const { processes, turnsPerProcess } = plan.shards;
	progress(`shards: ${store.backend}: ${processes} processes, ${count(turnsPerProcess)} turns each…`);
	const clock = new BenchClock().current;
	const shards = Array.from({ length: processes }, (_, shard) =>
		startShard(program, {
			storeUrl: store.storeUrl,
			namespace: store.namespace,
			config: store.config,
			shard,
			shards: processes,
			turns: turnsPerProcess,
			clock
		})
	);
	let reports: ShardReport[];
	try {
		await Promise.all(shards.map((shard) => shard.ready));
		for (const shard of shards) shard.go();
		reports = await Promise.all(shards.map((shard) => shard.done));
	} catch (error) {
		for (const shard of shards) shard.stop();
		throw error;
	}
	const turns = reports.reduce((sum, report) => sum + report.recorded.length, 0);
	const compareAndSets = reports.reduce((sum, report) => sum + report.compareAndSets, 0);
	const retries = reports.reduce((sum, report) => sum + report.retries, 0);
	const keys = keysWritten(reports);
	progress(`shards: ${store.backend}: ${count(turns)} turns, ${count(retries)} retries; checking every member's messages…`);
	return {
		backend: store.backend,
		processes,
		turns,
		failedTurns: reports.reduce((sum, report) => sum + report.failed, 0),
		firstError: reports.find((report) => report.firstError)?.firstError,
		seconds: Math.max(...reports.map((report) => report.seconds)),
		recordTurn: summarize(reports.flatMap((report) => report.latencies)),
		compareAndSets,
		retries,
		retriesPerTurn: turns ? retries / turns : Number.NaN,
		...keys,
		calls: summedCalls(reports),
		lost: await lostMessages(store, reports)
	};
}

/** A shard process, started: resolves `ready` once its engine is open, starts its turns at `go`, resolves `done` with its report. */
function startShard(program: ChildProgram, args: ShardArguments) {
	const child: ChildProcess = fork(program.modulePath, [JSON.stringify(args)], { execArgv: program.execArgv, stdio: ['ignore', 2, 2, 'ipc'] });
	let report: ShardReport | undefined;
	let markReady: () => void;
	const ready = new Promise<void>((resolve) => (markReady = resolve));
	const done = new Promise<ShardReport>((resolve, reject) => {
		child.on('message', (message: ShardMessage) => {
			if ('ready' in message) markReady();
			if ('report' in message) report = message.report;
		});
		child.on('error', reject);
		child.on('exit', (code, signal) => {
			if (report && code === 0) resolve(report);
			else reject(new Error(`Shard process ${args.shard} ended with ${signal ?? `code ${code}`} before reporting.`));
		});
	});
	return {
		// A process that ends before it is ready fails the barrier too.
		ready: Promise.race([ready, done.then(() => undefined)]),
		done,
		go: () => child.send({ go: true } satisfies ShardMessage),
		stop: () => child.exitCode === null && child.kill()
	};
}

/**
 * Every key written during the turns, by how many processes: a key every process wrote is a hot key unless it is a member's
 * own (it names a member who talked in servers of every shard, whose directory each shard writes).
 */
function keysWritten(
	reports: readonly ShardReport[]
): Pick<ShardsResult, 'keysWritten' | 'sharedKeys' | 'hotKeys' | 'hotCompareAndSet' | 'hotPatterns' | 'kinds'> {
	const byKey = new Map<string, { processes: number; writes: number; retries: number; operations: Set<string> }>();
	for (const report of reports) {
		for (const [key, writes, retries, operations] of report.keys) {
			const counted = byKey.get(key) ?? { processes: 0, writes: 0, retries: 0, operations: new Set<string>() };
			counted.processes++;
			counted.writes += writes;
			counted.retries += retries;
			for (const operation of operations) counted.operations.add(operation);
			byKey.set(key, counted);
		}
	}
	const members = new Set(reports.flatMap((report) => report.recorded.flatMap(([, messages]) => messages.map(([author]) => author))));
	const kinds = new Map<string, ShardKeyKind>();
	const hotPatterns: Record<string, number> = {};
	for (const [key, counted] of byKey) {
		if (counted.processes < 2) continue;
		const kind = KEY_KINDS[keyKind(key)];
		const row = kinds.get(kind) ?? { kind, keys: 0, hot: 0, hotCompareAndSet: 0, memberOwn: 0, writes: 0, retries: 0, operations: [] };
		row.keys++;
		if (counted.processes === reports.length) {
			const ownedBy = key.match(/\d{17,20}/g)?.some((id) => members.has(id));
			if (ownedBy) row.memberOwn++;
			else {
				row.hot++;
				if ([...counted.operations].some((operation) => operation.startsWith('compareAndSet'))) row.hotCompareAndSet++;
				const pattern = key.replace(/\d+/g, '#');
				hotPatterns[pattern] = (hotPatterns[pattern] ?? 0) + 1;
			}
		}
		row.writes += counted.writes;
		row.retries += counted.retries;
		row.operations = [...new Set([...row.operations, ...counted.operations])].sort();
		kinds.set(kind, row);
	}
	const rows = [...kinds.values()].sort((a, b) => b.writes - a.writes);
	return {
		keysWritten: byKey.size,
		sharedKeys: rows.reduce((sum, row) => sum + row.keys, 0),
		hotKeys: rows.reduce((sum, row) => sum + row.hot, 0),
		hotCompareAndSet: rows.reduce((sum, row) => sum + row.hotCompareAndSet, 0),
		hotPatterns,
		kinds: rows
	};
}

function summedCalls(reports: readonly ShardReport[]): Record<string, number> {
	const calls: Record<string, number> = {};
	for (const report of reports) for (const [name, made] of Object.entries(report.calls)) calls[name] = (calls[name] ?? 0) + made;
	return calls;
}

/**
 * The check after the run, through a fresh engine on the same store: each member's export (their directory and author
 * index, then the archives they list) must hold every message of theirs the shards recorded, and list each channel where
 * a turn was theirs. A turn with any message missing is lost.
 */
async function lostMessages(store: BenchStore, reports: readonly ShardReport[]): Promise<NonNullable<ShardsResult['lost']>> {
	const started = performance.now();
	const expected = new Map<string, { messages: Set<string>; channels: Set<string> }>();
	const of = (member: string) => expected.get(member) ?? expected.set(member, { messages: new Set(), channels: new Set() }).get(member)!;
	for (const report of reports) {
		for (const [channel, messages] of report.recorded) {
			for (const [author, id] of messages) of(author).messages.add(id);
			of(messages.at(-1)![0]).channels.add(channel);
		}
	}
	const clock = new BenchClock();
	clock.current = Math.max(...reports.map((report) => report.clock));
	const engine = await openEngine(store.storeUrl, clock, { storeNamespace: store.namespace, ...store.config });
	const missing = new Set<string>();
	let conversations = 0;
	try {
		const members = [...expected];
		for (let at = 0; at < members.length; at += CHECKS_IN_FLIGHT) {
			await Promise.all(
				members.slice(at, at + CHECKS_IN_FLIGHT).map(async ([member, wanted]) => {
					const exported = await engine.exportUser(member);
					const archived = new Set(exported.archive.map((message) => message.id));
					for (const id of wanted.messages) if (!archived.has(id)) missing.add(id);
					const listed = new Set(exported.shortTerm.map((entry) => entry.channelId));
					for (const channel of wanted.channels) if (!listed.has(channel)) conversations++;
				})
			);
		}
	} finally {
		await engine.close();
	}
	const turns = reports.reduce(
		(sum, report) => sum + report.recorded.filter(([, messages]) => messages.some(([, id]) => missing.has(id))).length,
		0
	);
	return {
		turns,
		messages: missing.size,
		conversations,
		members: expected.size,
		checkedMessages: [...expected.values()].reduce((sum, wanted) => sum + wanted.messages.size, 0),
		seconds: (performance.now() - started) / 1000
	};
}
