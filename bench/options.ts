/** The sections `npm run bench` can run, in the order it runs them. */
export const SECTIONS = [
	'latency',
	'encryption',
	'session',
	'hostile',
	'scale',
	'forgetting-scale',
	'registry-scale',
	'shards',
	'naive',
	'memory',
	'recall'
] as const;
export type SectionName = (typeof SECTIONS)[number];

/** `keyv-sqlite`: the same SQLite file through @keyv/sqlite (`MEMORY_SQLITE_DRIVER`), next to the default store. */
export const BACKENDS = ['sqlite', 'keyv-sqlite', 'redis', 'postgres'] as const;
export type BackendName = (typeof BACKENDS)[number];

/** What one run measures, and at which scale. */
export interface BenchPlan {
	mode: 'full' | 'quick';
	sections: Set<SectionName>;
	backends: BackendName[];
	latency: {
		/** Messages the measured channel holds once seeded (a member message and a persona reply per turn). */
		channelMessages: number;
		/** The last seeding turns, timed one by one. */
		recordSamples: number;
		/**
		 * buildContext calls after the first (cold) one while V8 compiles the context path: timed and reported
		 * apart from the steady figures (see docs/benchmarks.md).
		 */
		warmupContexts: number;
		/** Timed buildContext calls after those. */
		contextSamples: number;
		throughputSeconds: number;
		throughputChannels: number;
		/** Messages of the seeded channel deleted one at a time, after the other figures (bench/sections/forgetting.ts). */
		deletionSamples: number;
	};
	scale: {
		storeMessages: number;
		channels: number;
		servers: number;
		/** Channels of exactly these sizes are measured; the rest of the store is spread over the other channels. */
		sizes: number[];
		/** Channels of these sizes are reopened cold, one store per vocabulary (bench/sections/coldStart.ts). */
		coldSizes: number[];
		/** Contexts built in each measured channel before its timed ones ({@link BenchPlan.latency}'s `warmupContexts`). */
		warmupContexts: number;
		samples: number;
	};
	/**
	 * One channel of each of these sizes per backend, Maya's 100 turns spread among 49 other members' talk; in it,
	 * deletions, a bulk deletion and Maya's erasure, the same work at every size (bench/sections/forgettingScale.ts).
	 */
	forgettingScale: { sizes: number[] };
	/**
	 * One store per size of members registered, each with a user directory, seeded through the store
	 * (bench/sections/registryScale.ts): `samples` new members' first turns timed on each, the sizes taking turns in
	 * `rounds`, then one sweep of each.
	 */
	registryScale: { sizes: number[]; samples: number; rounds: number };
	/** Shard processes started at once on one store per backend, each recording this many turns over its own servers (bench/sections/shards.ts). */
	shards: { processes: number; turnsPerProcess: number };
	/** One channel recorded and asked on two stores of each backend, one sealed with MEMORY_ENCRYPTION_KEY (bench/sections/encryption.ts). */
	encryption: { channelMessages: number; recordSamples: number; warmupContexts: number; contextSamples: number };
	/** The `/session` operations on a store delaying every call (bench/sections/session.ts), for members of these sizes. */
	session: { delayMs: number; memberTurns: number[] };
	/** Per kind of hostile traffic (bench/sections/hostile.ts): ordinary turns seeding its channel, turns warming up, turns timed. */
	hostile: { seedTurns: number; warmup: number; samples: number };
	memory: { channels: number; servers: number; turnsPerChannel: number };
	recall: {
		budgets: number[];
		/** Conversations of the chat-like set and of the generated set. */
		chats: number;
		generated: number;
		/** The folder holding LoCoMo's development files (`--locomo DIR`), or null. */
		locomo: string | null;
	};
}

const FULL: Omit<BenchPlan, 'mode' | 'sections' | 'backends'> = {
	latency: {
		channelMessages: 10_000,
		recordSamples: 1_000,
		warmupContexts: 500,
		contextSamples: 1_000,
		throughputSeconds: 5,
		throughputChannels: 16,
		deletionSamples: 50
	},
	scale: {
		storeMessages: 200_000,
		channels: 2_000,
		servers: 50,
		sizes: [100, 1_000, 10_000, 100_000],
		coldSizes: [10_000, 100_000],
		warmupContexts: 100,
		samples: 300
	},
	forgettingScale: { sizes: [10_000, 100_000, 1_000_000] },
	registryScale: { sizes: [10_000, 100_000, 1_000_000], samples: 300, rounds: 10 },
	shards: { processes: 4, turnsPerProcess: 2_000 },
	encryption: { channelMessages: 4_000, recordSamples: 1_000, warmupContexts: 300, contextSamples: 1_000 },
	session: { delayMs: 20, memberTurns: [100, 1_000, 10_000] },
	hostile: { seedTurns: 300, warmup: 5, samples: 100 },
	memory: { channels: 10_000, servers: 100, turnsPerChannel: 5 },
	recall: { budgets: [500, 1_500, 3_000], chats: 10, generated: 12, locomo: null }
};

/** A smoke run for CI: every section and backend, a tenth of the data (a tenth of the scale store's channels too), fewer samples. */
const QUICK: Omit<BenchPlan, 'mode' | 'sections' | 'backends'> = {
	latency: {
		channelMessages: 1_000,
		recordSamples: 200,
		warmupContexts: 100,
		contextSamples: 200,
		throughputSeconds: 2,
		throughputChannels: 16,
		deletionSamples: 20
	},
	scale: { storeMessages: 20_000, channels: 200, servers: 5, sizes: [100, 1_000, 10_000], coldSizes: [10_000], warmupContexts: 50, samples: 200 },
	forgettingScale: { sizes: [1_000, 4_000] },
	registryScale: { sizes: [10_000, 100_000], samples: 100, rounds: 5 },
	shards: { processes: 4, turnsPerProcess: 150 },
	encryption: { channelMessages: 400, recordSamples: 100, warmupContexts: 50, contextSamples: 100 },
	session: { delayMs: 20, memberTurns: [100] },
	hostile: { seedTurns: 50, warmup: 2, samples: 10 },
	memory: { channels: 1_000, servers: 100, turnsPerChannel: 5 },
	recall: { budgets: [500, 1_500, 3_000], chats: 2, generated: 3, locomo: null }
};

export const USAGE = `Usage: npm run bench -- [--quick] [--only=${SECTIONS.join(',')}] [--backends=${BACKENDS.join(',')}] [--locomo DIR]

  --locomo DIR   the folder holding LoCoMo's files 26, 41, 43, 47 and 49.json (snap-research/locomo, data/locomo10.zip,
                 data/multimodal_dialog/locomo10_v2/): the recall section measures them too; never committed`;

/** Reads the command line; throws with the usage on anything it does not know. */
export function parseArguments(argv: readonly string[]): BenchPlan {
	let quick = false;
	let sections: SectionName[] = [...SECTIONS];
	let backends: BackendName[] = [...BACKENDS];
	let locomo: string | null = null;
	for (let at = 0; at < argv.length; at++) {
		const argument = argv[at]!;
		if (argument === '--quick') quick = true;
		else if (argument === '--locomo' || argument.startsWith('--locomo=')) {
			locomo = argument === '--locomo' ? (argv[++at] ?? '') : argument.slice('--locomo='.length);
			if (!locomo) throw new Error(`--locomo takes the folder holding LoCoMo's files.\n${USAGE}`);
		} else if (argument.startsWith('--only=')) sections = listOf(argument, SECTIONS);
		else if (argument.startsWith('--backends=')) backends = listOf(argument, BACKENDS);
		else if (argument === '--help' || argument === '-h') throw new Error(USAGE);
		else throw new Error(`Unknown argument "${argument}".\n${USAGE}`);
	}
	const plan = quick ? QUICK : FULL;
	return { mode: quick ? 'quick' : 'full', sections: new Set(sections), backends, ...plan, recall: { ...plan.recall, locomo } };
}

function listOf<T extends string>(argument: string, known: readonly T[]): T[] {
	const [flag, value = ''] = argument.split('=', 2) as [string, string?];
	const names = value
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	const unknown = names.filter((name) => !known.includes(name as T));
	if (names.length === 0 || unknown.length > 0) throw new Error(`${flag} takes a comma list of ${known.join(', ')}; got "${value}".\n${USAGE}`);
	return known.filter((name) => names.includes(name));
}
