import { randomBytes } from 'node:crypto';
import type { MemoryEngine } from '../../src/engine';
import { type BenchStore, prepareStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress } from '../log';
import type { BenchPlan } from '../options';
import type { EncryptionResult } from '../results';
import { summarize, timed } from '../stats';
import { channelOf, ChatWorkload, openEngine } from '../workload';
import { errorText } from './shared';

/** The two engines of one backend: values as they are, and values sealed with MEMORY_ENCRYPTION_KEY. */
const SIDES = ['plain', 'sealed'] as const;

/**
 * Section 1c, per backend: what sealing every value costs. Two stores of the backend get the same turns and the same
 * questions, one with `MEMORY_ENCRYPTION_KEY`, one without, call by call in turn, so that both see the same machine.
 */
export async function runEncryption(plan: BenchPlan): Promise<EncryptionResult[]> {
	const results: EncryptionResult[] = [];
	for (const backend of plan.backends) {
		const stores: BenchStore[] = [];
		try {
			for (const _ of SIDES) {
				const prepared = await prepareStore(backend);
				if (prepared.skipped !== undefined) throw new Error(`skipped: ${prepared.skipped}`);
				stores.push(prepared.store);
			}
			results.push({ backend, ...(await measure(stores, plan.encryption)) });
		} catch (error) {
			progress(`${backend}: encryption: ${errorText(error)}`);
			results.push({ backend, error: errorText(error) });
		} finally {
			for (const store of stores) await store.dispose().catch(() => undefined);
		}
	}
	return results;
}

async function measure(stores: BenchStore[], plan: BenchPlan['encryption']) {
	const workloads = SIDES.map(() => new ChatWorkload(new ChatCorpus(303)));
	const key = randomBytes(32).toString('base64');
	const engines: MemoryEngine[] = [];
	try {
		for (const [at, store] of stores.entries()) {
			const config = { storeNamespace: store.namespace, ...(SIDES[at] === 'sealed' ? { encryptionKey: key } : {}) };
			engines.push(await openEngine(store.storeUrl, workloads[at]!.clock, config));
		}
		const channel = channelOf(0, 0);
		const turns = Math.ceil(plan.channelMessages / 2);
		progress(`${stores[0]!.backend}: encryption: ${count(turns)} turns and ${count(plan.contextSamples)} contexts on each side, in turn…`);
		const record: number[][] = SIDES.map(() => []);
		for (let at = 0; at < turns; at++) {
			for (const side of SIDES.keys()) {
				const workload = workloads[side]!;
				const [, elapsed] = await timed(() =>
					engines[side]!.recordTurn(workload.turn(channel, channel.members[at % channel.members.length]))
				);
				if (at >= turns - plan.recordSamples) record[side]!.push(elapsed);
			}
		}
		const context: number[][] = SIDES.map(() => []);
		for (let at = 0; at < plan.warmupContexts + plan.contextSamples; at++) {
			for (const side of SIDES.keys()) {
				const request = workloads[side]!.request(channel, channel.members[at % channel.members.length]);
				const [, elapsed] = await timed(() => engines[side]!.buildContext(request));
				if (at >= plan.warmupContexts) context[side]!.push(elapsed);
			}
		}
		return {
			channelMessages: plan.channelMessages,
			plain: { recordTurn: summarize(record[0]!), buildContext: summarize(context[0]!) },
			sealed: { recordTurn: summarize(record[1]!), buildContext: summarize(context[1]!) }
		};
	} finally {
		for (const engine of engines) await engine.close();
	}
}
