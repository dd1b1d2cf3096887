import type * as PromClient from 'prom-client';
import type { LatencyHistogram } from '../engine';
import type { MemoryCounters } from '../engine';

/** The part of a prom-client `Registry` the memory metrics use; prom-client's registries fit. */
export interface MetricsRegistry {
	/** Adds a metric to the registry. */
	registerMetric(metric: unknown): void;
	/** The metric registered under `name`, if any. */
	getSingleMetric(name: string): unknown;
	/** Takes the metric registered under `name` out of the registry. */
	removeSingleMetric(name: string): void;
}

/** Where `memory.stats()` is published as Prometheus metrics. */
export interface MemoryMetricsOptions {
	/** The registry to add the metrics to. @default prom-client's default registry (`register`) */
	registry?: MetricsRegistry;
}

/** Prefix of every metric name. */
export const METRICS_PREFIX = 'sapphire_memory_';

/** Every engine publishing to a registry, kept on the registry itself so that two copies of this package (CommonJS and ESM) share it. */
const SOURCES = Symbol.for('sapphire-plugin-memory.metrics.sources');

type Sources = Set<() => MemoryCounters>;
type Snapshots = readonly MemoryCounters[];

/** One counter: its name after the prefix, its help, and what it reads, one number or one per label value. */
interface CounterSpec {
	name: string;
	help: string;
	label?: string;
	read: (stats: MemoryCounters) => number | Record<string, number>;
}

const COUNTERS: CounterSpec[] = [
	{ name: 'turns_recorded_total', help: 'Turns captured (written to memory).', read: (stats) => stats.turnsRecorded },
	{ name: 'turns_skipped_total', help: 'Turns not captured, by reason.', label: 'reason', read: (stats) => stats.turnsSkipped },
	{ name: 'turns_failed_total', help: 'Turns not captured because the store failed.', read: (stats) => stats.turnsFailed },
	{ name: 'contexts_built_total', help: 'Contexts built for a generation.', read: (stats) => stats.contextsBuilt },
	{ name: 'contexts_failed_total', help: 'Contexts the store failed to give.', read: (stats) => stats.contextsFailed },
	{
		name: 'context_tokens_total',
		help: 'BPE tokens injected in the contexts built, by tier (their sum leaves out the blank lines between tiers).',
		label: 'tier',
		read: ({ tokensInjected: { total, ...tiers } }) => tiers
	},
	{
		name: 'store_unavailable_calls_total',
		help: 'Store calls that failed because the store could not be reached.',
		read: (stats) => stats.store.unavailableCalls
	},
	{ name: 'store_outages_total', help: 'Times the store became unreachable.', read: (stats) => stats.store.outages },
	{ name: 'damaged_values_total', help: 'Reads of a stored value that could not be used, read as missing.', read: (stats) => stats.damagedValues },
	{ name: 'sweeps_total', help: 'Sweeps of expired data completed.', read: (stats) => stats.sweeps.runs },
	{ name: 'sweep_failures_total', help: 'Sweeps of expired data that failed.', read: (stats) => stats.sweeps.failures },
	{ name: 'summarizer_calls_total', help: 'Requests the background summarizer sent.', read: (stats) => stats.summarizer.calls },
	{ name: 'summarizer_cost_usd_total', help: 'What the background summarizer cost, in US dollars.', read: (stats) => stats.summarizer.costUsd }
];

const HISTOGRAMS: [name: string, help: string, read: (stats: MemoryCounters) => LatencyHistogram][] = [
	['capture_duration_seconds', 'Time recordTurn took (capture of one turn).', (stats) => stats.latency.capture],
	['context_duration_seconds', 'Time buildContext took (one context).', (stats) => stats.latency.context]
];

const STORE_UP = 'store_up';

/** Every metric name, prefixed. */
export const METRIC_NAMES: readonly string[] = [...COUNTERS.map(({ name }) => name), STORE_UP, ...HISTOGRAMS.map(([name]) => name)].map(
	(name) => METRICS_PREFIX + name
);

/**
 * Publishes `memory.stats()` as Prometheus metrics (`sapphire_memory_…`), read when the registry is
 * scraped, on a registry of the host's prom-client (an optional peer dependency). Several engines on
 * one registry (two clients in one process, a reload) add up; registering again never throws.
 * Resolves with the function that takes this engine back out (the metrics go with the last engine),
 * or null when prom-client is not installed. The Sapphire plugin calls it unless `memory.metrics` is false.
 * @example
 * import { register } from 'prom-client';
 * await registerMemoryMetrics(memory); // then serve `await register.metrics()` from your own HTTP endpoint
 */
export async function registerMemoryMetrics(memory: { stats(): MemoryCounters }, options: MemoryMetricsOptions = {}): Promise<(() => void) | null> {
	const prom = await loadPromClient();
	if (!prom) return null;
	const registry = (options.registry ?? prom.register) as MetricsRegistry & { [SOURCES]?: Sources };
	registry[SOURCES] ??= new Set();
	const sources = registry[SOURCES];
	const snapshots = () => [...(registry[SOURCES] ?? [])].map((stats) => stats());
	define(prom, registry, snapshots);
	const source = () => memory.stats();
	sources.add(source);
	return () => {
		sources.delete(source);
		if (sources.size > 0) return;
		for (const name of METRIC_NAMES) registry.removeSingleMetric(name);
		delete registry[SOURCES];
	};
}

/** Adds the metrics the registry does not have yet (none after a first call, all after `registry.clear()`). */
function define(prom: typeof PromClient, registry: MetricsRegistry, snapshots: () => Snapshots): void {
	const registers = [registry as PromClient.Registry];
	const missing = (name: string) => registry.getSingleMetric(METRICS_PREFIX + name) === undefined;
	for (const { name, help, label, read } of COUNTERS) {
		if (!missing(name)) continue;
		new prom.Counter({
			name: METRICS_PREFIX + name,
			help,
			labelNames: label ? [label] : [],
			registers,
			collect() {
				this.reset();
				for (const stats of snapshots()) {
					const value = read(stats);
					if (typeof value === 'number') this.inc(value);
					else for (const [key, count] of Object.entries(value)) this.inc({ [label!]: key }, count);
				}
			}
		});
	}
	if (missing(STORE_UP)) {
		new prom.Gauge({
			name: METRICS_PREFIX + STORE_UP,
			help: 'Whether the store answers (1) or not (0); 0 when any engine sees it down.',
			registers,
			collect() {
				this.set(snapshots().every((stats) => stats.store.available) ? 1 : 0);
			}
		});
	}
	for (const [name, help, read] of HISTOGRAMS) {
		if (missing(name)) registry.registerMetric(new SnapshotHistogram(METRICS_PREFIX + name, help, () => snapshots().map(read)));
	}
}

/**
 * A histogram whose buckets the engines already counted (`memory.stats().latency`), in the shape
 * prom-client's registry formats; prom-client's own Histogram only counts what it observes itself.
 */
class SnapshotHistogram {
	public readonly type = 'histogram';
	public readonly aggregator = 'sum';

	public constructor(
		public readonly name: string,
		public readonly help: string,
		private readonly read: () => LatencyHistogram[]
	) {}

	public get() {
		const histograms = this.read();
		const bounds = histograms[0]?.boundsMs ?? [];
		const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
		let cumulative = 0;
		bounds.forEach((bound, index) => {
			cumulative += histograms.reduce((total, histogram) => total + (histogram.counts[index] ?? 0), 0);
			values.push({ metricName: `${this.name}_bucket`, labels: { le: bound / 1000 }, value: cumulative });
		});
		const count = histograms.reduce((total, histogram) => total + histogram.count, 0);
		values.push(
			{ metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, value: count },
			{ metricName: `${this.name}_sum`, labels: {}, value: histograms.reduce((total, histogram) => total + histogram.sumMs, 0) / 1000 },
			{ metricName: `${this.name}_count`, labels: {}, value: count }
		);
		return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
	}

	/** The engines own the counts; `registry.resetMetrics()` leaves them. */
	public reset(): void {}
}

/** prom-client, or null when the host has not installed it. */
async function loadPromClient(): Promise<typeof PromClient | null> {
	try {
		const loaded = (await import('prom-client')) as typeof PromClient & { default?: typeof PromClient };
		return loaded.default ?? loaded;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' || (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND')
			return null;
		throw error;
	}
}
