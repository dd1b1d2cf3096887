import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { count, mib, ms, percent, table, times } from './format';
import type { BenchPlan } from './options';
import { ratio } from './stats';
import type {
	BackendLatencyResult,
	BenchResults,
	EncryptionResult,
	HostileResult,
	MachineInfo,
	NaiveRow,
	RecallCount,
	RecallSetResult,
	ScaleResult,
	ColdStartRow,
	ForgettingScaleResult,
	SessionResult,
	StorageRow,
	TargetCheck
} from './results';

export function machineInfo(): MachineInfo {
	const cpuList = cpus();
	return {
		cores: cpuList.length,
		cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
		totalMemoryBytes: totalmem(),
		node: process.version,
		platform: `${platform()} ${release()} ${arch()}`,
		loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
		date: new Date().toISOString()
	};
}

export function renderHeader(results: BenchResults): string {
	const { machine } = results;
	return [
		`sapphire-plugin-memory benchmark: ${results.mode} run`,
		`Machine: ${machine.cores} cores, ${machine.cpuModel}, ${(machine.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB RAM, Node ` +
			`${machine.node}, ${machine.platform}`,
		`Date: ${machine.date}; load average at start ${machine.loadAverage.join(', ')} (other work on the machine skews the figures)`,
		`Sections: ${results.sections.join(', ')}; backends: ${results.backends.join(', ')}`,
		''
	].join('\n');
}

export function renderLatency(results: BackendLatencyResult[], plan: BenchPlan): string {
	const notes: string[] = [];
	const rows = results.map((result) => {
		if (!result.buildContext || !result.recordTurn) {
			notes.push(`${result.backend}: ${result.skipped ? `skipped: ${result.skipped}` : `failed: ${firstLine(result.error)}`}`);
			return [result.backend, ...Array<string>(10).fill('—')];
		}
		const throughput = result.throughput!;
		if (throughput.failed)
			notes.push(`${result.backend}: ${count(throughput.failed)} turns failed during the throughput run: ${firstLine(throughput.firstError)}`);
		return [
			result.backend,
			ms(result.recordTurn.p50),
			ms(result.recordTurn.p99),
			ms(result.recordTurn.mean),
			ms(result.firstContextMs),
			ms(result.warmupContexts!.p99),
			ms(result.buildContext.p50),
			ms(result.buildContext.p99),
			ms(result.buildContext.mean),
			count(throughput.turnsPerSecond),
			`${result.seedSeconds!.toFixed(1)} s`
		];
	});
	const { latency } = plan;
	return table(
		`1. Latency and throughput: one guild channel of ${count(latency.channelMessages)} messages (20 members, persona "sol"), times in ms`,
		['backend', 'record p50', 'record p99', 'record mean', 'first ctx', 'warm-up p99', 'ctx p50', 'ctx p99', 'ctx mean', 'turns/s', 'seeding'],
		rows,
		[
			`recordTurn: the last ${count(latency.recordSamples)} seeding turns, one member message + one reply each, one at a time.`,
			`first ctx: the first buildContext after reopening the engine on the seeded store (cold load); warm-up: the ` +
				`${count(latency.warmupContexts)} after it,`,
			`while V8 compiles the context path on its worker threads; ctx: the ${count(latency.contextSamples)} after those. A different ` +
				`question each.`,
			`turns/s: ${latency.throughputChannels} recordTurn calls in flight over ${latency.throughputChannels} new channels of the same ` +
				`guild for ${latency.throughputSeconds} s, resolved turns only.`,
			...notes
		]
	);
}

/** Forgetting in the latency section's channel, with that channel's recordTurn beside it. */
export function renderForgetting(results: BackendLatencyResult[], plan: BenchPlan): string {
	const rows = results.flatMap((result) => {
		const { forgetting } = result;
		if (!forgetting || !result.recordTurn) return [];
		return [
			[
				result.backend,
				ms(result.recordTurn.p50),
				ms(forgetting.deleteOne.p50),
				ms(forgetting.deleteOne.p99),
				times(forgetting.deleteOne.p50 / result.recordTurn.p50),
				ms(forgetting.eraseMember.ms),
				ms(forgetting.eraseMember.longestBlockMs),
				count(forgetting.eraseMember.archivedMessagesRemoved),
				ms(forgetting.purgeServer.ms),
				count(forgetting.purgeServer.channels)
			]
		];
	});
	const { latency } = plan;
	return table(
		`1b. Forgetting in the same channel of ${count(latency.channelMessages)} messages, times in ms`,
		[
			'backend',
			'record p50',
			'delete p50',
			'delete p99',
			'delete / record',
			'erase member',
			'erase block',
			'archived gone',
			'purge server',
			'channels'
		],
		rows,
		[
			`delete: memory.messagesChanged of one message deleted on Discord, ${count(latency.deletionSamples)} messages spread over the ` +
				`channel's history, one at a time; each takes the message and the persona's reply to it out of every copy.`,
			`On SQLite the write-ahead log is emptied within a second (in a worker thread, not waited for); the file's rewrite (VACUUM) ` +
				`waits for MEMORY_SQLITE_REWRITE_SECONDS.`,
			`erase member: memory.clearAll of one of the channel's 20 members, once (the SQLite file's rewrite follows, as configured); ` +
				`erase block: the longest the event loop waited meanwhile (perf_hooks.monitorEventLoopDelay); archived gone: the copies it ` +
				`took out of the archive.`,
			`purge server: memory.purgeServer of another server of 100 channels with 5 turns each (the bot removed from it), once.`
		]
	);
}

/** recordTurn and buildContext without and with MEMORY_ENCRYPTION_KEY, side by side. */
export function renderEncryption(results: EncryptionResult[], plan: BenchPlan): string {
	const rows = results.flatMap(({ backend, plain, sealed }) => {
		if (!plain || !sealed) return [];
		return [
			[
				backend,
				ms(plain.recordTurn.p50),
				ms(sealed.recordTurn.p50),
				ms(plain.recordTurn.p99),
				ms(sealed.recordTurn.p99),
				ms(plain.buildContext.p50),
				ms(sealed.buildContext.p50),
				ms(plain.buildContext.p99),
				ms(sealed.buildContext.p99),
				times(sealed.recordTurn.p50 / plain.recordTurn.p50),
				times(sealed.buildContext.p50 / plain.buildContext.p50)
			]
		];
	});
	const { encryption } = plan;
	return table(
		`1c. Encryption at rest: one channel of ${count(encryption.channelMessages)} messages without and with a key, times in ms`,
		['backend', 'record p50', 'sealed', 'record p99', 'sealed', 'ctx p50', 'sealed', 'ctx p99', 'sealed', 'record ×', 'ctx ×'],
		rows,
		[
			`Two stores of each backend, one with MEMORY_ENCRYPTION_KEY, get the same turns and questions, one call on each in turn;`,
			`recordTurn: the last ${count(encryption.recordSamples)} turns; ctx: ${count(encryption.contextSamples)} contexts after ` +
				`${count(encryption.warmupContexts)} warming up.`,
			`Sealed: every value goes through AES-256-GCM (node:crypto) on its way to the store and back; × is sealed / plain at p50.`
		]
	);
}

/** The hostile section: each kind of traffic's calls and the event loop's longest block, ordinary chat first. */
export function renderHostile(hostile: HostileResult): string {
	const rows = hostile.rows.map(({ kind, recordTurn, buildContext, longestBlockMs }) => [
		kind,
		ms(recordTurn.p50),
		ms(recordTurn.p99),
		ms(buildContext.p50),
		ms(buildContext.p99),
		ms(longestBlockMs)
	]);
	return table(
		`1e. Hostile input on SQLite: turns of ${hostile.turnMessages} messages of ${count(hostile.messageChars)} characters, a long query, ` +
			'the largest budget; times in ms',
		['traffic', 'record p50', 'record p99', 'ctx p50', 'ctx p99', 'longest block'],
		rows,
		[
			`Each kind in a channel of its own (seeded with ordinary chat): ${count(hostile.samples)} timed turns, each followed by a timed context`,
			'asked by a member with an ordinary question (or the long query, or the largest budget); the event loop turns between calls.',
			'longest block: the largest delay perf_hooks.monitorEventLoopDelay saw while the kind ran (garbage collection included).',
			...longHistoryNote(hostile)
		]
	);
}

/** What a turn of the longest history costs beside one of made-up words at 50 a turn, in the same run. */
function longHistoryNote({ rows, longHistory, turnMessages }: HostileResult): string[] {
	const long = rows.find((row) => row.kind === longHistory?.kind);
	const reference = rows.find((row) => row.kind === 'made-up words');
	if (!long || !reference) return [];
	return [
		`${long.kind}: ${count(longHistory!.messages)} messages, the most a turn may hold, of which capture reads the newest ` +
			`${count(turnMessages)}; record p50 ${times(ratio(long.recordTurn.p50, reference.recordTurn.p50))} and longest block ` +
			`${times(ratio(long.longestBlockMs, reference.longestBlockMs))} those of made-up words (${count(turnMessages)} a turn) in this run.`
	];
}

/** The `/session` operations on the slow store: calls and time, per member size, side by side. */
export function renderSession(session: SessionResult): string {
	const operations = session.sizes[0]?.operations.map((operation) => operation.operation) ?? [];
	const rows = operations.map((name) => [
		name,
		...session.sizes.flatMap((size) => {
			const found = size.operations.find((operation) => operation.operation === name);
			return found ? [count(found.calls), ms(found.ms)] : ['—', '—'];
		})
	]);
	return table(
		`1d. /session operations on a store answering every call ${session.delayMs} ms later: store calls and time (ms)`,
		['operation', ...session.sizes.flatMap((size) => [`calls, ${count(size.memberTurns)} turns`, 'ms'])],
		rows,
		[
			`A member of N turns over 12 channels of 3 servers, another member's turn before each of hers; each operation on a fresh`,
			`copy of the seeded SQLite store, wrapped so that every call waits ${session.delayMs} ms (tools/slow-store), as a managed store a few`,
			`milliseconds away does. wipe-channel and purge server take one of her channels and its server.`
		]
	);
}

export function renderScale(scale: ScaleResult): string {
	const rows = scale.points.map((point) => [
		count(point.size),
		ms(point.firstContextMs),
		ms(point.buildContext.p50),
		ms(point.buildContext.p99),
		ms(point.buildContext.mean),
		ms(point.recordTurn.p50),
		ms(point.recordTurn.p99),
		ms(point.recordTurn.mean)
	]);
	const { growth } = scale;
	rows.push([
		`${count(growth.to)} / ${count(growth.from)}`,
		'',
		times(growth.buildContext.p50),
		times(growth.buildContext.p99),
		'',
		times(growth.recordTurn.p50),
		times(growth.recordTurn.p99),
		''
	]);
	const samples = scale.points[0]?.buildContext.count ?? 0;
	return table(
		`2. Scale (SQLite): ${count(scale.storeMessages)} messages over ${count(scale.channels)} channels in ${count(scale.servers)} ` +
			`servers, times in ms`,
		['channel messages', 'first ctx', 'ctx p50', 'ctx p99', 'ctx mean', 'record p50', 'record p99', 'record mean'],
		rows,
		[
			`Seeded in ${count(scale.seedTurns)} turns (up to 20 member messages + 1 reply each, channels interleaved) in ` +
				`${scale.seedSeconds.toFixed(1)} s.`,
			`Per channel: the first context, ${count(scale.points[0]?.warmupContexts.count ?? 0)} warming up, then ${count(samples)} timed ` +
				`contexts (a different question each) at exactly that size,`,
			`then ${count(scale.points[0]?.recordTurn.count ?? 0)} one-message turns.`,
			'Last row: largest channel / smallest channel.'
		]
	);
}

export function renderColdStarts(rows: readonly ColdStartRow[]): string {
	return table(
		'2b. Cold start (SQLite, MEMORY_INDEX_CACHE_MB=32): the first context after a restart, times in ms',
		[
			'vocabulary',
			'channel messages',
			'cold ctx',
			'cold block',
			'ctx while indexing p50',
			'p99',
			'indexed after',
			'warm p50',
			'warm p99',
			'heap growth',
			'rss',
			'longest block'
		],
		rows.map((row) => [
			row.vocabulary === null ? 'ordinary chat' : `${count(row.vocabulary)} words`,
			count(row.size),
			ms(row.coldMs),
			ms(row.coldBlockMs),
			ms(row.duringIndexing.p50),
			ms(row.duringIndexing.p99),
			ms(row.indexedMs),
			ms(row.warm.p50),
			ms(row.warm.p99),
			mib(row.heapGrowthBytes),
			mib(row.rssBytes),
			ms(row.longestBlockMs)
		]),
		[
			'One store per vocabulary with one channel of each size; each channel is then started in a new process, as a bot restarts.',
			'cold ctx: its first context; the contexts after it while older messages are indexed in the background; then warm ones.',
			"heap growth: the process's heap and buffers from before the engine opened, after a collection; rss at the end.",
			'block: the longest the event loop waited (perf_hooks.monitorEventLoopDelay), during the first context and over the whole run.'
		]
	);
}

/** Forgetting the same things in channels of each size, with the channel's recordTurn beside it; then largest / smallest. */
export function renderForgettingScale(results: ForgettingScaleResult[]): string {
	const notes: string[] = [];
	const rows = results.flatMap(({ backend, skipped, error, points }) => {
		if (skipped || error) notes.push(`${backend}: ${skipped ? `skipped: ${skipped}` : `failed: ${firstLine(error)}`}`);
		return points.map((point) => [
			backend,
			count(point.messages),
			ms(point.recordTurn.p50),
			ms(point.deleteOne.p50),
			times(ratio(point.deleteOne.p50, point.recordTurn.p50)),
			ms(point.deleteBlockMs),
			ms(point.bulkDelete.ms),
			times(ratio(point.bulkDelete.ms, point.deleteOne.p50)),
			ms(point.clearAll.ms),
			ms(point.clearAll.longestBlockMs),
			count(point.clearAll.archivedMessagesRemoved)
		]);
	});
	const grown = results.flatMap(({ backend, growth }) =>
		growth
			? [
					[
						backend,
						`${count(growth.to)} / ${count(growth.from)}`,
						times(growth.deleteOne),
						times(growth.deleteBlock),
						times(growth.clearAll),
						times(growth.clearAllBlock)
					]
				]
			: []
	);
	const spam = results.flatMap(({ backend, points }) =>
		points.map((point) => [
			backend,
			count(point.messages),
			ms(point.recordTurn.p50),
			ms(point.afterSpam.recordTurn.p50),
			times(ratio(point.afterSpam.recordTurn.p50, point.recordTurn.p50)),
			ms(point.deleteOne.p50),
			ms(point.afterSpam.deleteOne.p50),
			times(ratio(point.afterSpam.deleteOne.p50, point.deleteOne.p50))
		])
	);
	const forgetting = table(
		'2c. Forgetting at scale: Maya (100 turns) among 49 other members in one channel of N messages, times in ms',
		[
			'backend',
			'N',
			'record p50',
			'delete p50',
			'delete / record',
			'delete block',
			'bulk 100',
			'bulk / delete',
			'clearAll',
			'clearAll block',
			'archived gone'
		],
		rows,
		[
			"A new store for each N; Maya's turns (a message and the reply each) spread evenly over the history, the rest in busy turns.",
			"record: 200 one-message turns after the seeding. delete: memory.messagesChanged of one other member's message from the " +
				'middle of the history, 20 different ones one at a time;',
			'bulk 100: the 100 messages after them in one call. clearAll: Maya erased, once (its log emptied before it resolves, the ' +
				"SQLite file's rewrite within MEMORY_SQLITE_REWRITE_SECONDS); archived gone: the copies it took out of the archive.",
			'block: the longest the event loop waited (perf_hooks.monitorEventLoopDelay, reset before each call), over the 20 deletions ' +
				'for delete.',
			...notes
		]
	);
	return [
		forgetting,
		table('Largest channel / smallest', ['backend', 'N', 'delete p50', 'delete block', 'clearAll', 'clearAll block'], grown),
		table(
			'Then 10,000 more messages deleted in calls of 1,000 (a moderation bot removing spam), the same turns and deletions again',
			['backend', 'N', 'record p50', 'record after', 'after / before', 'delete p50', 'delete after', 'after / before'],
			spam,
			['Each deleted id is a record of its own: a turn reads those of the ids it carries, not a list of all the channel lost.']
		)
	].join('\n');
}

/** The naive reference's rows: the SQLite latency channel and each scale channel. */
export function naiveRows(latency: BackendLatencyResult[] | undefined, scale: ScaleResult | undefined): NaiveRow[] {
	const rows: NaiveRow[] = [];
	const sqlite = latency?.find((result) => result.backend === 'sqlite' && result.naive);
	if (sqlite)
		rows.push({
			where: 'latency channel',
			messages: sqlite.channelMessages!,
			recordTurn: sqlite.recordTurn!,
			buildContext: sqlite.buildContext!,
			naive: sqlite.naive!
		});
	for (const point of scale?.points ?? [])
		if (point.naive)
			rows.push({
				where: 'scale channel',
				messages: point.size,
				recordTurn: point.recordTurn,
				buildContext: point.buildContext,
				naive: point.naive
			});
	return rows;
}

export function renderNaive(rows: NaiveRow[], scale: ScaleResult | undefined): string {
	const cells = rows.map((row) => [
		`${row.where} ${count(row.messages)}`,
		ms(row.naive.recordTurn.p50),
		ms(row.naive.recordTurn.p99),
		ms(row.naive.buildContext.p50),
		ms(row.naive.buildContext.p99),
		times(row.naive.oursOverNaive.recordTurn.p50),
		times(row.naive.oursOverNaive.recordTurn.p99),
		times(row.naive.oursOverNaive.buildContext.p50),
		times(row.naive.oursOverNaive.buildContext.p99)
	]);
	const naiveGrowth = scale?.growth.naive;
	if (naiveGrowth && scale) {
		cells.push([
			`naive ${count(scale.growth.to)} / ${count(scale.growth.from)}`,
			times(naiveGrowth.recordTurn.p50),
			times(naiveGrowth.recordTurn.p99),
			times(naiveGrowth.buildContext.p50),
			times(naiveGrowth.buildContext.p99),
			'',
			'',
			'',
			''
		]);
	}
	return table(
		'3. Naive reference (in-memory arrays, full keyword scan), same turns and questions; naive times in ms, then ours / naive',
		['channel', 'naive rec p50', 'naive rec p99', 'naive ctx p50', 'naive ctx p99', 'rec p50 ×', 'rec p99 ×', 'ctx p50 ×', 'ctx p99 ×'],
		cells,
		[
			'Naive: record pushes the messages; context = newest 10 messages + every older one ranked by shared lower-cased words, packed by ' +
				'tokenCount into 1,500 tokens.',
			'Ratios above 1× mean the engine is slower than the naive reference (it persists every turn; the naive one keeps nothing across ' +
				'a restart).'
		]
	);
}

export function renderMemory(memory: NonNullable<BenchResults['memory']>): string {
	const parts: string[] = [];
	const active = memory.activeChannels;
	if (active) {
		const gcNote = active.gcAvailable ? 'after global.gc()' : 'global.gc() unavailable: figures include garbage';
		parts.push(
			table(
				`4. Memory: a fresh SQLite engine, ${active.turns / active.channels} turns and 1 context in each of ` +
					`${count(active.channels)} channels (${count(active.servers)} servers), in a child process`,
				['measure', 'value'],
				[
					['RSS of the bare process (engine not loaded)', mib(active.processStart.rss)],
					['RSS before (engine open, empty store)', mib(active.before.rss)],
					[`RSS with ${count(active.channels)} active channels, just after the work`, mib(active.after.rss)],
					[`RSS with ${count(active.channels)} active channels, settled (idle ${active.settled.waitedSeconds} s)`, mib(active.settled.rss)],
					['heap used before', mib(active.before.heapUsed)],
					['heap used after', mib(active.after.heapUsed)],
					['recordTurn p50 / p99 (ms)', `${ms(active.recordTurn.p50)} / ${ms(active.recordTurn.p99)}`],
					['buildContext p50 / p99 (ms), first in each channel', `${ms(active.buildContext.p50)} / ${ms(active.buildContext.p99)}`],
					['time', `${active.seconds.toFixed(1)} s`]
				],
				[
					`Read ${gcNote}, with the engine still open. Runtime: ${active.runtime}.`,
					'The process also holds the bench\'s text generator (a few MiB, in "before" already) and one latency per operation.',
					'Just after the work, V8 still holds as heap the room the garbage of the last turns took; left idle, it hands that back ' +
						'once its memory reducer runs, which can take from seconds to more than a minute (settled: read once the heap it keeps ' +
						'is back near what it uses). The engine is loaded without discord.js and Sapphire, which a bot loads anyway ' +
						'(some 38 MiB more).'
				]
			)
		);
	}
	if (memory.storage.length) parts.push(renderStorage(memory.storage));
	return parts.join('\n');
}

function renderStorage(rows: StorageRow[]): string {
	return table(
		'4b. Store size per 100,000 messages',
		['store', 'messages', 'grown by', 'per 100,000 messages', 'what is measured'],
		rows.map((row) => [
			row.store,
			count(row.messages),
			mib(row.beforeBytes === null || row.afterBytes === null ? null : row.afterBytes - row.beforeBytes),
			mib(row.bytesPer100kMessages),
			row.measures
		])
	);
}

/** Disk per 100,000 messages: the scale store first, then each latency store. */
export function storageRows(latency: BackendLatencyResult[] | undefined, scale: ScaleResult | undefined): StorageRow[] {
	const rows: StorageRow[] = [];
	if (scale) rows.push({ store: 'sqlite (scale store)', ...scale.storage });
	for (const result of latency ?? []) if (result.storage) rows.push({ store: `${result.backend} (latency channel)`, ...result.storage });
	return rows;
}

export function renderRecall(recall: NonNullable<BenchResults['recall']>): string {
	const budgets = recall.sets[0]?.points.map((point) => point.budget) ?? [];
	const share = (counted: RecallCount) => percent(counted.found / counted.answerTurns);
	const atDefault = (set: RecallSetResult) => set.points.find((point) => point.budget === 1_500) ?? set.points[0]!;
	return table(
		'5. Recall (SQLite): answer turns whose message (its first 100 characters, case and white space aside) reaches the context',
		[
			'set',
			...budgets.map((budget) => `steady ${count(budget)}`),
			...budgets.map((budget) => `after a burst ${count(budget)}`),
			...budgets.map((budget) => `plain BM25 ${count(budget)}`)
		],
		recall.sets.map((set) => [
			`${set.name} (${count(set.points[0]?.steady.answerTurns ?? 0)} answer turns)`,
			...set.points.map((point) => share(point.steady)),
			...set.points.map((point) => share(point.burst)),
			...set.points.map((point) => share(point.plainBm25))
		]),
		[
			...recall.sets.map((set) => {
				const point = atDefault(set);
				const kinds = Object.entries(point.byKind)
					.map(([kind, counted]) => `${kind} ${share(counted)}`)
					.join(', ');
				const largest = Math.max(...set.points.map((at) => at.maxContextTokens));
				return (
					`${set.name}: ${set.conversations} conversation(s), ${count(set.sessions)} sessions, ${count(set.messages)} messages in ` +
					`${count(set.turns)} turns, ${count(set.questions)} questions; full history ${count(set.fullHistoryTokens)} tokens; at ` +
					`${count(point.budget)} tokens (steady) by kind: ${kinds}; ` +
					`by third of the conversation: ${point.byThird.map(share).join(' / ')}; largest context ${count(largest)} tokens`
				);
			}),
			...recall.skipped.map(({ name, reason }) => `${name}: skipped, ${reason}`),
			'steady: one context and indexingIdle() first, a turn of the event loop before each question;',
			'after a burst: a fresh engine per budget records the conversation and is asked in loops of awaits'
		]
	);
}

export function renderTargets(checks: TargetCheck[], mode: BenchResults['mode']): string {
	const quickNote = mode === 'quick' ? ' (quick run: the targets are checked on the full run only; the quick figures are shown)' : '';
	const lines = [`Targets${quickNote}`, ''];
	const width = Math.max(...checks.map((check) => check.name.length));
	for (const check of checks) {
		const status = check.status === 'QUICK' ? '----' : check.status === 'NOT RUN' ? 'SKIP' : check.status;
		const notRun = check.status === 'NOT RUN' ? ' not measured in this run' : '';
		lines.push(`${status.padEnd(4)}  ${check.name.padEnd(width)}  ${check.shown.padStart(12)}  (target ${check.target})${notRun}`);
	}
	return `${lines.join('\n')}\n`;
}

/** Writes `bench-results/bench-<date>.json` and `bench-results/latest.json`; returns the dated file's path. */
export function writeJson(results: BenchResults): string {
	const directory = join(__dirname, '..', 'bench-results');
	mkdirSync(directory, { recursive: true });
	const json = `${JSON.stringify(results, jsonNumbers, '\t')}\n`;
	// ISO 8601 with ":" and "." made file-name safe.
	const file = join(directory, `bench-${results.machine.date.replace(/[:.]/g, '-')}.json`);
	writeFileSync(file, json);
	writeFileSync(join(directory, 'latest.json'), json);
	return file;
}

/** NaN and Infinity become null (JSON has neither). */
function jsonNumbers(_key: string, value: unknown): unknown {
	return typeof value === 'number' && !Number.isFinite(value) ? null : value;
}

function firstLine(text: string | undefined): string {
	return (text ?? 'unknown error').split('\n')[0]!;
}
