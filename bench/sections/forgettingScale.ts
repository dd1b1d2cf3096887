import { performance } from 'node:perf_hooks';
import type { MemoryEngine } from '../../src/engine';
import { type BenchStore, prepareStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress, ProgressCounter } from '../log';
import type { BenchPlan } from '../options';
import type { ForgettingScalePoint, ForgettingScaleResult } from '../results';
import { ratio, summarize, timed, timedWithBlock } from '../stats';
import { type Channel, ChatWorkload, type Member, messagesIn, openEngine, serverId, channelId } from '../workload';
import { turnSizes } from './scale';
import { errorText } from './shared';

/** The members talking besides Maya, and Maya's turns (a message and the persona's reply each), whatever the channel's size. */
const OTHER_MEMBERS = 49;
const MAYA_TURNS = 100;
/** Turns timed after the seeding, the reference a deletion is read against. */
const RECORD_SAMPLES = 200;
/** Messages deleted one at a time, then at once, from the middle of the history. */
const SINGLE_DELETES = 20;
const BULK_DELETE = 100;
/** A server number no other section's channel uses. */
const SERVER = 9;
/** Messages deleted after the erasure, as a moderation bot removes spam: ids memory never stored, 1,000 a call. */
const SPAM_DELETED = 10_000;
const SPAM_PER_CALL = 1_000;

/**
 * Section 2c, per backend (`keyv-sqlite` left out: section 1b compares the drivers): for each size, a new store
 * holding one guild channel of that many messages, where Maya's 100 turns are spread evenly among 49 other
 * members' talk, so the channel grows and what is forgotten stays the same. Measured in this order: 200 turns
 * (the reference), 20 of the other members' messages from the middle deleted one at a time
 * (`messagesChanged`), the 100 messages after them deleted in one call, then Maya erased (`clearAll`); then 10,000 more
 * messages deleted, as a moderation bot removes spam, and the turns and deletions timed again.
 */
export async function runForgettingScale(plan: BenchPlan): Promise<ForgettingScaleResult[]> {
	const results: ForgettingScaleResult[] = [];
	for (const backend of plan.backends.filter((name) => name !== 'keyv-sqlite')) {
		const points: ForgettingScalePoint[] = [];
		let failure: { skipped?: string; error?: string } = {};
		for (const messages of plan.forgettingScale.sizes) {
			const prepared = await prepareStore(backend);
			if (prepared.skipped !== undefined) {
				progress(`forgetting-scale: ${backend}: skipped: ${prepared.skipped}`);
				failure = { skipped: prepared.skipped };
				break;
			}
			try {
				points.push(await measureSize(prepared.store, messages));
			} catch (error) {
				progress(`forgetting-scale: ${backend}: failed: ${errorText(error)}`);
				failure = { error: errorText(error) };
				break;
			} finally {
				await prepared.store.dispose().catch((error: unknown) => progress(`${backend}: cleaning up failed: ${errorText(error)}`));
			}
		}
		results.push({ backend, ...failure, points, ...(failure.skipped || failure.error ? {} : { growth: growth(points) }) });
	}
	return results;
}

async function measureSize(store: BenchStore, messages: number): Promise<ForgettingScalePoint> {
	const label = `forgetting-scale: ${store.backend}, ${count(messages)} messages`;
	const workload = new ChatWorkload(new ChatCorpus(303));
	const { channel, others, maya } = guildChannel();
	const engine = await openEngine(store.storeUrl, workload.clock, { storeNamespace: store.namespace, ...store.config });
	try {
		const seeded = await seedChannel(engine, workload, others, maya, messages, label);
		// The other members' messages around the middle: every third one for the single deletions, the next 100 in one call.
		const middle = Math.floor(seeded.othersIds.length / 2) - (SINGLE_DELETES * 3) / 2;
		const singles = Array.from({ length: SINGLE_DELETES }, (_, at) => seeded.othersIds[middle + at * 3]!);
		const bulk = seeded.othersIds.slice(middle + SINGLE_DELETES * 3, middle + SINGLE_DELETES * 3 + BULK_DELETE);
		if (bulk.length < BULK_DELETE) throw new Error(`${count(messages)} messages hold too few of the other members' to delete.`);

		progress(`${label}: ${RECORD_SAMPLES} turns, then ${SINGLE_DELETES} deletions one at a time…`);
		const turns = Array.from({ length: RECORD_SAMPLES }, () => workload.turn(others));
		const recorded: number[] = [];
		for (const turn of turns) recorded.push((await timed(() => engine.recordTurn(turn)))[1]);

		const deleted = (messageIds: string[]) =>
			engine.messagesChanged({ serverId: channel.serverId, channelId: channel.channelId, messageIds, kind: 'deleted' });
		// The seeding's garbage collected before the deletions, and each kind's before the next, not during them.
		global.gc?.();
		const deletions: number[] = [];
		let deleteBlockMs = 0;
		let singlesRemoved = 0;
		for (const id of singles) {
			const { result, ms, longestBlockMs } = await timedWithBlock(() => deleted([id]));
			deletions.push(ms);
			deleteBlockMs = Math.max(deleteBlockMs, longestBlockMs);
			singlesRemoved += result.archivedMessagesRemoved;
		}
		progress(`${label}: ${BULK_DELETE} messages deleted in one call, then clearAll…`);
		global.gc?.();
		const bulkDelete = await timedWithBlock(() => deleted(bulk));
		global.gc?.();
		const erased = await timedWithBlock(() => engine.clearAll(maya.id));

		progress(`${label}: ${count(SPAM_DELETED)} spam messages deleted, then the turns and deletions again…`);
		let spam = 0;
		for (let at = 0; at < SPAM_DELETED; at += SPAM_PER_CALL)
			await deleted(Array.from({ length: SPAM_PER_CALL }, () => `9${String(++spam).padStart(18, '0')}`));
		global.gc?.();
		const recordedAfter: number[] = [];
		for (const turn of Array.from({ length: RECORD_SAMPLES }, () => workload.turn(others)))
			recordedAfter.push((await timed(() => engine.recordTurn(turn)))[1]);
		// Other members' messages from the start of the history, none deleted before.
		const deletionsAfter: number[] = [];
		for (const id of Array.from({ length: SINGLE_DELETES }, (_, at) => seeded.othersIds[at * 3]!))
			deletionsAfter.push((await timed(() => deleted([id])))[1]);
		return {
			messages,
			seedSeconds: seeded.seconds,
			recordTurn: summarize(recorded),
			deleteOne: summarize(deletions),
			deleteBlockMs,
			deleteArchivedRemoved: singlesRemoved,
			bulkDelete: {
				messages: bulk.length,
				ms: bulkDelete.ms,
				longestBlockMs: bulkDelete.longestBlockMs,
				archivedMessagesRemoved: bulkDelete.result.archivedMessagesRemoved
			},
			clearAll: { ms: erased.ms, longestBlockMs: erased.longestBlockMs, archivedMessagesRemoved: erased.result.archivedMessagesRemoved },
			afterSpam: { deletedIds: SPAM_DELETED, recordTurn: summarize(recordedAfter), deleteOne: summarize(deletionsAfter) }
		};
	} finally {
		await engine.close();
	}
}

/** The channel with its 50 members, the same channel as seen by the 49 besides Maya (who pick the busy turns' authors), and Maya. */
function guildChannel(): { channel: Channel; others: Channel; maya: Member } {
	const member = (index: number, name: string) => ({ id: (800_000_000_000_000_000n + BigInt(SERVER * 1_000 + index)).toString(), name });
	const maya = member(0, 'Maya');
	const otherMembers = Array.from({ length: OTHER_MEMBERS }, (_, at) => member(1 + at, `Member ${1 + at}`));
	const where = { serverId: serverId(SERVER), channelId: channelId(SERVER * 1_000) };
	return { channel: { ...where, members: [maya, ...otherMembers] }, others: { ...where, members: otherMembers }, maya };
}

/**
 * Records `messages` messages in 100 slots, each the other members' share of the rest in busy turns as section 2
 * seeds (up to 21 messages a turn), the last of them ending with Maya's message and the persona's reply to her.
 * Returns the other members' message ids in order.
 */
async function seedChannel(engine: MemoryEngine, workload: ChatWorkload, others: Channel, maya: Member, messages: number, label: string) {
	const rest = messages - 2 * MAYA_TURNS;
	if (rest < 4 * MAYA_TURNS) throw new Error(`A channel of ${count(messages)} messages leaves too few around Maya's ${MAYA_TURNS} turns.`);
	progress(`${label}: seeding, Maya's ${MAYA_TURNS} turns among ${OTHER_MEMBERS} other members…`);
	const counter = new ProgressCounter(`${label}: recorded`, messages, 'messages');
	const othersIds: string[] = [];
	let recorded = 0;
	const started = performance.now();
	for (let slot = 0; slot < MAYA_TURNS; slot++) {
		const share = Math.floor((rest * (slot + 1)) / MAYA_TURNS) - Math.floor((rest * slot) / MAYA_TURNS);
		// Maya's message and the reply count in the slot's last turn, as two of its messages.
		const sizes = turnSizes(share + 2);
		for (const [at, size] of sizes.entries()) {
			const turn = at === sizes.length - 1 ? workload.busyTurn(others, size - 1, maya) : workload.busyTurn(others, size - 1);
			await engine.recordTurn(turn);
			for (const message of turn.history) if (message.authorId !== maya.id) othersIds.push(message.messageId!);
			recorded += messagesIn(turn);
			counter.update(recorded);
		}
	}
	return { othersIds, seconds: (performance.now() - started) / 1000 };
}

/** Largest channel / smallest channel. */
function growth(points: ForgettingScalePoint[]): ForgettingScaleResult['growth'] {
	const smallest = points[0]!;
	const largest = points.at(-1)!;
	return {
		from: smallest.messages,
		to: largest.messages,
		deleteOne: ratio(largest.deleteOne.p50, smallest.deleteOne.p50),
		deleteBlock: ratio(largest.deleteBlockMs, smallest.deleteBlockMs),
		clearAll: ratio(largest.clearAll.ms, smallest.clearAll.ms),
		clearAllBlock: ratio(largest.clearAll.longestBlockMs, smallest.clearAll.longestBlockMs)
	};
}
