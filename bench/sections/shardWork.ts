import { performance } from 'node:perf_hooks';
import type { MemoryConfig, MemoryTurn } from '../../src/engine';
import { ChatCorpus } from '../corpus';
import { channelId, ChatWorkload, type Member, openEngine } from '../workload';
import { type KeyWrites, ShardWrites } from './shardWrites';

/** Servers each shard owns, and channels in each. */
export const SERVERS_PER_SHARD = 5;
export const CHANNELS_PER_SERVER = 2;
/** Members who talk in servers of every shard (a member is one user id across shards), and the share of messages theirs. */
export const TRAVELLERS = 40;
export const TRAVELLER_SHARE = 0.1;
/** The share of messages written by a member the server has not seen before; the rest are its returning members'. */
export const NEW_MEMBER_SHARE = 0.1;
/** Member messages a turn holds, at most (one to this many, evenly). */
export const MAX_TURN_MESSAGES = 3;

/** What a shard process is told (as JSON, its one argument). */
export interface ShardArguments {
	storeUrl: string;
	namespace: string;
	config: Partial<MemoryConfig>;
	shard: number;
	/** How many shard processes run: Discord's shard count, which decides which servers are this shard's. */
	shards: number;
	turns: number;
	/** The bench clock's start, the same in every process. */
	clock: number;
}

/** What a shard process reports once its turns are recorded. */
export interface ShardReport {
	shard: number;
	turns: number;
	failed: number;
	firstError?: string;
	seconds: number;
	/** Each resolved recordTurn, in ms. */
	latencies: number[];
	compareAndSets: number;
	retries: number;
	calls: Record<string, number>;
	keys: KeyWrites[];
	/** Each resolved turn's channel and member messages ([author id, message id], the turn's member last): what the check after the run must find. */
	recorded: RecordedTurn[];
	/** The bench clock after the last turn. */
	clock: number;
}

export type RecordedTurn = [channelId: string, messages: [authorId: string, messageId: string][]];

/** Messages to and from the parent: the barrier (`ready`, then `go`) and the report. */
export type ShardMessage = { ready: true } | { go: true } | { report: ShardReport };

/** Opens the engine on the shared store, waits at the barrier, records its turns over its own servers, reports. */
export async function runShard(args: ShardArguments, barrier: () => Promise<void>): Promise<ShardReport> {
	const corpus = new ChatCorpus(404 + args.shard);
	const workload = new ChatWorkload(corpus);
	workload.clock.current = args.clock;
	const members = new ShardMembers(args.shard, args.shards, workload, corpus);
	const engine = await openEngine(args.storeUrl, workload.clock, { storeNamespace: args.namespace, ...args.config });
	const writes = new ShardWrites(engine, `${args.namespace}:`);
	const latencies: number[] = [];
	const recorded: RecordedTurn[] = [];
	let failed = 0;
	let firstError: string | undefined;
	try {
		await barrier();
		writes.start();
		const started = performance.now();
		for (let at = 0; at < args.turns; at++) {
			const turn = members.turn();
			const begun = performance.now();
			try {
				await engine.recordTurn(turn);
				latencies.push(performance.now() - begun);
				recorded.push([turn.channelId, turn.history.map((message) => [message.authorId!, message.messageId!])]);
			} catch (error) {
				failed++;
				firstError ??= error instanceof Error ? error.message : String(error);
			}
		}
		const seconds = (performance.now() - started) / 1000;
		writes.stop();
		const { compareAndSets, retries, calls } = writes;
		const keys = writes.written();
		return {
			shard: args.shard,
			turns: args.turns,
			failed,
			firstError,
			seconds,
			latencies,
			compareAndSets,
			retries,
			calls,
			keys,
			recorded,
			clock: workload.clock.current
		};
	} finally {
		await engine.close();
	}
}

/** A shard's servers and the members talking in them: new ones each turn, returning ones, and the travellers. */
class ShardMembers {
	private readonly channels: { serverId: string; channelId: string; server: number }[] = [];
	/** Each server's members seen so far. */
	private readonly regulars = new Map<number, Member[]>();
	private newcomers = 0;

	public constructor(
		private readonly shard: number,
		shards: number,
		private readonly workload: ChatWorkload,
		private readonly corpus: ChatCorpus
	) {
		for (let server = 0; server < SERVERS_PER_SHARD; server++) {
			const number = 300 + shard * 10 + server;
			for (let channel = 0; channel < CHANNELS_PER_SERVER; channel++)
				this.channels.push({ serverId: serverOfShard(shard, shards, server), channelId: channelId(number * 10 + channel), server: number });
		}
	}

	/** The next turn: a channel of the shard, one to three members' messages, the persona's reply; message ids unique across shards. */
	public turn(): MemoryTurn {
		const where = this.channels[Math.floor(this.roll() * this.channels.length)]!;
		const size = 1 + Math.floor(this.roll() * MAX_TURN_MESSAGES);
		const authors: Member[] = [];
		while (authors.length < size) {
			const author = this.author(where.server);
			if (!authors.some((member) => member.id === author.id)) authors.push(author);
		}
		const turn = this.workload.busyTurn({ ...where, members: authors }, size, authors.at(-1));
		// Snowflakes carry their worker in bits 17 to 21: each process makes its own, as Discord's shards do.
		const unique = (id: string) => (BigInt(id) | (BigInt(this.shard) << 17n)).toString();
		return {
			...turn,
			history: turn.history.map((message) => ({ ...message, messageId: unique(message.messageId!) })),
			responses: turn.responses.map((response) => ({ ...response, messageId: unique(response.messageId!) }))
		};
	}

	private author(server: number): Member {
		const regulars = this.regulars.get(server) ?? [];
		this.regulars.set(server, regulars);
		const roll = this.roll();
		if (roll < TRAVELLER_SHARE) return traveller(Math.floor(this.roll() * TRAVELLERS));
		if (roll < TRAVELLER_SHARE + NEW_MEMBER_SHARE || regulars.length < 3) {
			const id = 800_000_000_000_000_000n + 700_000n + BigInt(this.shard * 100_000 + this.newcomers++);
			const member = { id: id.toString(), name: `Member ${this.shard}-${this.newcomers}` };
			regulars.push(member);
			return member;
		}
		return regulars[Math.floor(this.roll() * regulars.length)]!;
	}

	private roll(): number {
		return this.corpus.random();
	}
}

/**
 * Server number `index` of `shard`: a snowflake Discord sends to that shard, `(id >> 22) % shards` (its creation time, in ms
 * since 2015, is in bits 22 and up), created in 2025 as a server the bot is in would be.
 */
export function serverOfShard(shard: number, shards: number, index: number): string {
	const created = 1_300_000_000_000n - (1_300_000_000_000n % BigInt(shards)) + BigInt(index * shards + shard);
	return (created << 22n).toString();
}

/** Traveller number `index`: the same user id in every shard. */
function traveller(index: number): Member {
	return { id: (800_000_000_000_000_000n + 690_000n + BigInt(index)).toString(), name: `Traveller ${index}` };
}
