import { performance } from 'node:perf_hooks';
import type { MemoryEngine } from '../../src/engine';
import { Records } from '../../src/engine/records/Records';
import { registration } from '../../src/engine/records/registryLayout';
import { conversationKeys } from '../../src/engine/records/scopes';
import type { Listings } from '../../src/engine/schemas';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { type BenchStore, prepareStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import type { BenchPlan } from '../options';
import type { RegistryScalePoint, RegistryScaleResult } from '../results';
import { ratio, summarize, timed } from '../stats';
import { type Channel, ChatWorkload, channelId, openEngine, PERSONA, serverId } from '../workload';
import { errorText } from './shared';

/** Members seeded per batch: their directories and their registry ids land in one `setMany`. */
const SEED_BATCH = 1_000;
/** New members' turns before the timed ones at each size, so that the engine is warm (JIT, connections) when timed. */
const WARMUP_TURNS = 50;
/** A server and channel no other section uses. */
const SERVER = 11;

/**
 * Per backend (`keyv-sqlite` left out: section 1b compares the drivers), one store per size (a file, or a namespace of the
 * server's), each holding that many members registered in the registry partition of the server the timed turns are in
 * (`registry:users:server:<id>`), each with a user directory listing one conversation there (alive for a year), written
 * through the store in batches (the directories and the registry ids of a batch in one `setMany`), not through turns,
 * and left to settle (the SQLite log copied into the file, PostgreSQL's tables analyzed). An engine opens on each, warms
 * up with new members' turns, then the first `recordTurn` of many new members is timed one by one, in one guild
 * channel, the sizes taking turns in rounds so that the machine's other work weighs on each alike; then one sweep of
 * each. The target: a new member's first turn at the largest size at most 1.5 times what
 * it costs at the first.
 */
export async function runRegistryScale(plan: BenchPlan): Promise<RegistryScaleResult[]> {
	const results: RegistryScaleResult[] = [];
	for (const backend of plan.backends.filter((name) => name !== 'keyv-sqlite')) {
		const stores: BenchStore[] = [];
		try {
			while (stores.length < plan.registryScale.sizes.length) {
				const prepared = await prepareStore(backend);
				if (prepared.skipped !== undefined) throw new Skipped(prepared.skipped);
				stores.push(prepared.store);
			}
			results.push({ backend, points: await measureSizes(stores, plan) });
		} catch (error) {
			const reason = error instanceof Skipped ? { skipped: error.message } : { error: errorText(error) };
			progress(`registry-scale: ${backend}: ${reason.skipped ? 'skipped' : 'failed'}: ${reason.skipped ?? reason.error}`);
			results.push({ backend, ...reason, points: [] });
		} finally {
			for (const store of stores)
				await store.dispose().catch((error: unknown) => progress(`${backend}: cleaning up failed: ${errorText(error)}`));
		}
	}
	return results;
}

/** A backend the bench cannot reach here. */
class Skipped extends Error {}

async function measureSizes(stores: readonly BenchStore[], plan: BenchPlan): Promise<RegistryScalePoint[]> {
	const { sizes, samples, rounds } = plan.registryScale;
	const workload = new ChatWorkload(new ChatCorpus(404));
	const seeded = [];
	for (const [at, store] of stores.entries()) seeded.push(await seed(store, sizes[at]!, workload.clock.now()));
	const engines: MemoryEngine[] = [];
	try {
		for (const store of stores)
			engines.push(await openEngine(store.storeUrl, workload.clock, { storeNamespace: store.namespace, ...store.config }));
		let newcomers = 0;
		// A member never seen before, in the same guild channel as the others timed on that store.
		const newcomerTurn = () => {
			const member = { id: (600_000_000_000_000_000n + BigInt(newcomers++)).toString(), name: `Newcomer ${newcomers}` };
			const channel: Channel = { serverId: serverId(SERVER), channelId: channelId(SERVER * 1_000), members: [member] };
			return workload.turn(channel, member);
		};
		const label = `registry-scale: ${stores[0]!.backend}`;
		progress(`${label}: ${WARMUP_TURNS} warm-up turns on each size, then ${samples} first turns of new members, in ${rounds} rounds…`);
		for (const engine of engines) for (let at = 0; at < WARMUP_TURNS; at++) await engine.recordTurn(newcomerTurn());
		const timings = engines.map((): number[] => []);
		for (let round = 0; round < rounds; round++)
			for (const [at, engine] of engines.entries())
				for (let turn = 0; turn < samples / rounds; turn++) timings[at]!.push((await timed(() => engine.recordTurn(newcomerTurn())))[1]);
		const points: RegistryScalePoint[] = [];
		for (const [at, engine] of engines.entries()) {
			progress(`${label}, ${count(sizes[at]!)} members: sweeping…`);
			const sweepMs = (await timed(() => engine.sweep()))[1];
			const firstTurn = summarize(timings[at]!);
			const ratioToFirst = ratio(firstTurn.p50, points[0]?.firstTurn.p50 ?? firstTurn.p50);
			points.push({ members: sizes[at]!, seedSeconds: seeded[at]!, firstTurn, ratioToFirst, sweepMs });
		}
		return points;
	} finally {
		for (const engine of engines) await engine.close();
	}
}

/**
 * Registers `members` members, each with a user directory, through the store, then lets the store settle (see
 * {@link runRegistryScale}). Returns the seconds the seeding took.
 */
async function seed(store: BenchStore, members: number, now: number): Promise<number> {
	const label = `registry-scale: ${store.backend}, ${count(members)} members`;
	const raw = await MemoryStore.open({ storeUrl: store.storeUrl, namespace: store.namespace, sqliteDriver: store.config.sqliteDriver });
	const counter = new ProgressCounter(`${label}: seeded`, members, 'members');
	const started = performance.now();
	// In the server the timed newcomers talk in (another channel), so that each of them is added to the set of every member.
	const where = { serverId: serverId(SERVER), channelId: channelId(SERVER * 1_000 + 1) };
	try {
		for (let at = 0; at < members; at += SEED_BATCH) {
			const ids = Array.from({ length: Math.min(SEED_BATCH, members - at) }, (_, index) =>
				(700_000_000_000_000_000n + BigInt(at + index)).toString()
			);
			const writes = ids.map((id) => {
				const key: string = conversationKeys({ userId: id, ...where }, PERSONA.id).userKey;
				const listing = { key, scope: 'user' as const, ...where, personaId: PERSONA.id, lastUpdated: now, expiresAt: now + 365 * 86_400_000 };
				return { key: Records.userDirectory(id), value: { [key]: listing } as Listings };
			});
			await raw.setMany(writes, registration('users', where.serverId, ids));
			counter.update(at + ids.length);
		}
		const seconds = (performance.now() - started) / 1000;
		await settle(raw);
		return seconds;
	} finally {
		await raw.close();
	}
}

/** The SQLite log copied into the file and emptied; PostgreSQL's tables vacuumed and analyzed, as autovacuum would soon. */
async function settle(raw: MemoryStore): Promise<void> {
	const adapter = raw.keyv.store as { checkpoint?: () => Promise<void>; query?: (sql: string) => Promise<unknown> };
	if (raw.kind === 'sqlite') await adapter.checkpoint?.();
	if (raw.kind === 'postgres') for (const table of ['memory', 'memory_sets']) await adapter.query?.(`VACUUM ANALYZE ${table}`);
}
