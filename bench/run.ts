/**
 * The benchmark harness: `npm run bench` (full) or `npm run bench -- --quick` (CI smoke run).
 * Tables go to stdout, progress to stderr, figures to bench-results/. See bench/options.ts for the flags.
 */
import { performance } from 'node:perf_hooks';
import { progress } from './log';
import { type BenchPlan, parseArguments, type SectionName } from './options';
import {
	machineInfo,
	naiveRows,
	renderHeader,
	renderEncryption,
	renderForgetting,
	renderForgettingScale,
	renderHostile,
	renderLatency,
	renderMemory,
	renderNaive,
	renderRecall,
	renderScale,
	renderColdStarts,
	renderSession,
	renderTargets,
	storageRows,
	writeJson
} from './report';
import type { BenchResults } from './results';
import { runEncryption } from './sections/encryption';
import { runForgettingScale } from './sections/forgettingScale';
import { runHostile } from './sections/hostile';
import { runLatency } from './sections/latency';
import { runSession } from './sections/session';
import { runMemory } from './sections/memory';
import { runRecall } from './sections/recall';
import { runRegistryScale } from './sections/registryScale';
import { renderRegistryScale } from './sections/registryScaleReport';
import { runScale } from './sections/scale';
import { runShards } from './sections/shards';
import { renderShards } from './sections/shardsReport';
import { errorText } from './sections/shared';
import { checkTargets } from './targets';
import { renderSourceRecords } from './sections/sourceRecords';

/** How long the process may linger after the report before it is ended (an open handle somewhere). */
const EXIT_GRACE_MS = 5_000;

async function main(): Promise<number> {
	let plan: BenchPlan;
	try {
		plan = parseArguments(process.argv.slice(2));
	} catch (error) {
		console.error((error as Error).message);
		return 2;
	}
	const wants = (section: SectionName) => plan.sections.has(section);
	// The naive reference is measured on the scale store's data (and the SQLite latency channel's).
	if (wants('naive') && !wants('scale') && !(wants('latency') && plan.backends.includes('sqlite'))) {
		progress('naive: the naive reference runs on the scale data: running the scale section too');
		plan.sections.add('scale');
	}

	const { latency, encryption, session, hostile, scale, forgettingScale, registryScale, shards, memory, recall } = plan;
	const results: BenchResults = {
		machine: machineInfo(),
		mode: plan.mode,
		sections: [...plan.sections],
		backends: plan.backends,
		parameters: { latency, encryption, session, hostile, scale, forgettingScale, registryScale, shards, memory, recall },
		sectionSeconds: {},
		errors: []
	};
	const started = performance.now();
	print(renderHeader(results));
	progress(`${plan.mode} run: ${results.sections.join(', ')} on ${plan.backends.join(', ')}`);

	/** Runs one section; a section that throws is reported and the others still run. */
	const section = async <T>(name: SectionName, run: () => Promise<T>): Promise<T | undefined> => {
		// What the previous section left behind is collected now, not during this one's timings.
		(globalThis as { gc?: () => void }).gc?.();
		progress(`${name}: starting`);
		const sectionStarted = performance.now();
		try {
			return await run();
		} catch (error) {
			progress(`${name}: failed: ${errorText(error)}`);
			results.errors.push({ section: name, error: errorText(error) });
			return undefined;
		} finally {
			const seconds = (performance.now() - sectionStarted) / 1000;
			results.sectionSeconds[name] = seconds;
			progress(`${name}: done in ${seconds.toFixed(1)} s`);
		}
	};

	if (wants('latency')) {
		results.latency = await section('latency', () => runLatency(plan, wants('naive')));
		for (const failed of results.latency?.filter((result) => result.error) ?? [])
			results.errors.push({ section: `latency (${failed.backend})`, error: failed.error! });
		if (results.latency) print(renderLatency(results.latency, plan));
		if (results.latency?.some((result) => result.forgetting)) print(renderForgetting(results.latency, plan));
		if (results.latency?.some((result) => result.sourceRecords)) print(renderSourceRecords(results.latency));
	}
	if (wants('encryption')) {
		results.encryption = await section('encryption', () => runEncryption(plan));
		for (const failed of results.encryption?.filter((result) => result.error) ?? [])
			results.errors.push({ section: `encryption (${failed.backend})`, error: failed.error! });
		if (results.encryption) print(renderEncryption(results.encryption, plan));
	}
	if (wants('session')) {
		results.session = await section('session', () => runSession(plan));
		if (results.session) print(renderSession(results.session));
	}
	if (wants('hostile')) {
		results.hostile = await section('hostile', () => runHostile(plan));
		if (results.hostile) print(renderHostile(results.hostile));
	}
	if (wants('scale')) {
		results.scale = await section('scale', () => runScale(plan, wants('naive')));
		if (results.scale) print(renderScale(results.scale));
		if (results.scale) print(renderColdStarts(results.scale.coldStarts));
	}
	if (wants('forgetting-scale')) {
		results.forgettingScale = await section('forgetting-scale', () => runForgettingScale(plan));
		for (const failed of results.forgettingScale?.filter((result) => result.error) ?? [])
			results.errors.push({ section: `forgetting-scale (${failed.backend})`, error: failed.error! });
		if (results.forgettingScale) print(renderForgettingScale(results.forgettingScale));
	}
	if (wants('registry-scale')) {
		results.registryScale = await section('registry-scale', () => runRegistryScale(plan));
		for (const failed of results.registryScale?.filter((result) => result.error) ?? [])
			results.errors.push({ section: `registry-scale (${failed.backend})`, error: failed.error! });
		if (results.registryScale) print(renderRegistryScale(results.registryScale));
	}
	if (wants('shards')) {
		results.shards = await section('shards', () => runShards(plan));
		for (const failed of results.shards?.filter((result) => result.error || result.failedTurns) ?? [])
			results.errors.push({
				section: `shards (${failed.backend})`,
				error: failed.error ?? `${failed.failedTurns} turns failed: ${failed.firstError}`
			});
		if (results.shards) print(renderShards(results.shards));
	}
	if (wants('naive')) {
		results.naive = naiveRows(results.latency, results.scale);
		if (results.naive.length) print(renderNaive(results.naive, results.scale));
	}
	if (wants('memory')) {
		const activeChannels = await section('memory', () => runMemory(plan));
		results.memory = { ...(activeChannels ? { activeChannels } : {}), storage: storageRows(results.latency, results.scale) };
		print(renderMemory(results.memory));
	}
	if (wants('recall')) {
		results.recall = await section('recall', () => runRecall(plan));
		if (results.recall) print(renderRecall(results.recall));
	}

	results.durationSeconds = (performance.now() - started) / 1000;
	results.targets = checkTargets(results);
	print(renderTargets(results.targets, plan.mode));
	const file = writeJson(results);
	print(`Figures written to ${file} and bench-results/latest.json (${results.durationSeconds.toFixed(1)} s).`);
	for (const { section: name, error } of results.errors) print(`ERROR in ${name}: ${error.split('\n')[0]}`);
	return results.errors.length ? 1 : 0;
}

function print(text: string): void {
	// A blank line after each block.
	process.stdout.write(`${text.trimEnd()}\n\n`);
}

main().then(
	(code) => {
		process.exitCode = code;
		setTimeout(() => {
			progress('a connection is still open; exiting');
			process.exit(code);
		}, EXIT_GRACE_MS).unref();
	},
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	}
);
