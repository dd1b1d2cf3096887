import { count, mib, ms, times } from './format';
import { forgettingFigures } from './forgettingTargets';
import type { BenchResults, TargetCheck } from './results';

interface TargetSpec {
	name: string;
	/** The figure, or null when its section or backend did not run. */
	value: number | null;
	limit: number;
	/** `max`: the figure must be at most the limit; `below`: strictly under it; `min`: at least it. */
	kind: 'max' | 'below' | 'min';
	show: (value: number) => string;
}

/** The performance targets, checked on a full run; a quick run shows its figures without judging them. */
export function checkTargets(results: BenchResults): TargetCheck[] {
	const sqlite = results.latency?.find((result) => result.backend === 'sqlite' && result.buildContext);
	const at = sqlite ? ` at ${count(sqlite.channelMessages!)} messages` : '';
	const growth = results.scale?.growth;
	const span = growth ? ` ${count(growth.to)}/${count(growth.from)}` : '';
	const memory = results.memory?.activeChannels;
	// The hostile section's worst kind of traffic.
	const hostile = results.hostile?.rows;
	const worst = (figure: (row: NonNullable<typeof hostile>[number]) => number) => (hostile?.length ? Math.max(...hostile.map(figure)) : null);
	// The first context after a restart in the largest channel reopened cold, the hardest vocabulary first.
	const cold = results.scale?.coldStarts.filter((row) => row.size === Math.max(...results.scale!.coldStarts.map((each) => each.size)));
	const coldAt = cold?.length ? ` at ${count(cold[0]!.size)} messages` : '';
	const coldWorst = (figure: (row: NonNullable<typeof cold>[number]) => number) => (cold?.length ? Math.max(...cold.map(figure)) : null);
	// The goal names PostgreSQL and Redis; SQLite's four processes on one file are shown, not judged.
	const shards = results.shards?.filter((result) => (result.backend === 'postgres' || result.backend === 'redis') && result.lost);
	const shardsWorst = (figure: (result: NonNullable<typeof shards>[number]) => number) => (shards?.length ? Math.max(...shards.map(figure)) : null);
	const shardsAt = shards?.length ? ` (${shards.map((result) => result.backend).join(', ')}, ${shards[0]!.processes} processes)` : '';
	// A new member's first turn at the largest registry over the same at the first, worst backend.
	const registries = results.registryScale?.filter((result) => result.points.length > 1);
	const registryRatio = registries?.length ? Math.max(...registries.map((result) => result.points.at(-1)!.ratioToFirst)) : null;
	const registryPoints = registries?.[0]?.points;
	const registrySpan = registryPoints ? ` ${count(registryPoints.at(-1)!.members)}/${count(registryPoints[0]!.members)}` : '';
	const forgetting = forgettingFigures(results.forgettingScale);
	const forgettingAt = forgetting ? ` (${forgetting.backends}), worst` : '';
	const specs: TargetSpec[] = [
		{
			name: `SQLite buildContext p50${at}`,
			value: sqlite?.buildContext?.p50 ?? null,
			limit: 0.5,
			kind: 'max',
			show: (value) => `${ms(value)} ms`
		},
		{ name: `SQLite buildContext p99${at}`, value: sqlite?.buildContext?.p99 ?? null, limit: 3, kind: 'max', show: (value) => `${ms(value)} ms` },
		{ name: `SQLite recordTurn p50${at}`, value: sqlite?.recordTurn?.p50 ?? null, limit: 1, kind: 'max', show: (value) => `${ms(value)} ms` },
		{
			name: 'SQLite throughput, 16 turns in flight',
			value: sqlite?.throughput?.turnsPerSecond ?? null,
			limit: 1_000,
			kind: 'min',
			show: (value) => `${count(value)} turns/s`
		},
		{ name: `recordTurn p50 ratio${span}`, value: growth?.recordTurn.p50 ?? null, limit: 1.5, kind: 'max', show: times },
		{ name: `buildContext p50 ratio${span}`, value: growth?.buildContext.p50 ?? null, limit: 3, kind: 'max', show: times },
		{
			name: 'SQLite store per 100,000 messages of chat (scale store)',
			value: results.scale?.storage.bytesPer100kMessages ?? null,
			limit: 40 * 2 ** 20,
			kind: 'max',
			show: mib
		},
		{
			name: 'hostile input: recordTurn p99, worst kind',
			value: worst((row) => row.recordTurn.p99),
			limit: 10,
			kind: 'max',
			show: (value) => `${ms(value)} ms`
		},
		{
			name: 'hostile input: buildContext p99, worst kind',
			value: worst((row) => row.buildContext.p99),
			limit: 10,
			kind: 'max',
			show: (value) => `${ms(value)} ms`
		},
		{
			name: 'hostile input: longest event-loop block',
			value: worst((row) => row.longestBlockMs),
			limit: 20,
			kind: 'max',
			show: (value) => `${ms(value)} ms`
		},
		{
			name: `first context after a restart${coldAt}, worst vocabulary`,
			value: coldWorst((row) => row.coldMs),
			limit: 100,
			kind: 'below',
			show: (value) => `${ms(value)} ms`
		},
		{
			name: `longest event-loop block, cold start${coldAt}`,
			value: coldWorst((row) => row.longestBlockMs),
			limit: 20,
			kind: 'max',
			show: (value) => `${ms(value)} ms`
		},
		{
			name: `shards${shardsAt}: compare-and-set retries per turn, worst`,
			value: shardsWorst((result) => result.retriesPerTurn!),
			limit: 0.01,
			kind: 'max',
			show: (value) => value.toFixed(4)
		},
		{
			name: `shards${shardsAt}: keys every process writes, worst`,
			value: shardsWorst((result) => result.hotKeys!),
			limit: 0,
			kind: 'max',
			show: count
		},
		{
			name: `shards${shardsAt}: messages and conversations lost`,
			value: shards?.length ? shards.reduce((sum, result) => sum + result.lost!.messages + result.lost!.conversations, 0) : null,
			limit: 0,
			kind: 'max',
			show: count
		},
		{
			name: `registry: a new member's first turn p50 ratio${registrySpan}, worst backend`,
			value: registryRatio,
			limit: 1.5,
			kind: 'max',
			show: times
		},
		{ name: `erasure 100,000/10,000 messages${forgettingAt}`, value: forgetting?.erasureGrowth ?? null, limit: 1.5, kind: 'max', show: times },
		{
			name: `one deletion 100,000/10,000 messages${forgettingAt}`,
			value: forgetting?.deleteGrowth ?? null,
			limit: 1.5,
			kind: 'max',
			show: times
		},
		{
			name: `one deletion / recordTurn at 100,000${forgettingAt}`,
			value: forgetting?.deleteToRecord ?? null,
			limit: 3,
			kind: 'max',
			show: times
		},
		{ name: `100 deleted at once / one deletion${forgettingAt}`, value: forgetting?.bulkToDelete ?? null, limit: 100, kind: 'max', show: times },
		{
			name: `forgetting: longest event-loop block${forgettingAt}`,
			value: forgetting?.longestBlockMs ?? null,
			limit: 20,
			kind: 'max',
			show: (value) => `${ms(value)} ms`
		},
		{
			name: `recordTurn after 10,000 deleted / before, at 100,000${forgettingAt}`,
			value: forgetting?.spamRecordGrowth ?? null,
			limit: 1.5,
			kind: 'max',
			show: times
		},
		{
			name: `RSS with ${memory ? count(memory.channels) : 'many'} active channels`,
			value: memory?.settled.rss ?? null,
			limit: 200 * 2 ** 20,
			kind: 'below',
			show: mib
		}
	];
	return specs.map((spec) => judge(spec, results.mode === 'quick'));
}

function judge(spec: TargetSpec, quick: boolean): TargetCheck {
	const target = `${spec.kind === 'max' ? '≤' : spec.kind === 'below' ? '<' : '≥'} ${spec.show(spec.limit)}`;
	if (spec.value === null || !Number.isFinite(spec.value)) return { name: spec.name, target, value: null, shown: '—', status: 'NOT RUN' };
	const met = spec.kind === 'max' ? spec.value <= spec.limit : spec.kind === 'below' ? spec.value < spec.limit : spec.value >= spec.limit;
	return { name: spec.name, target, value: spec.value, shown: spec.show(spec.value), status: quick ? 'QUICK' : met ? 'PASS' : 'MISS' };
}
