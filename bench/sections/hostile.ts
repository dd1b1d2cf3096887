import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_CONTEXT_TOKEN_BUDGET } from '../../src/engine/schemas/context';
import { MAX_TURN_HISTORY } from '../../src/engine/schemas/turn';
import type { ContextRequest, MemoryTurn } from '../../src/engine';
import { prepareStore } from '../backends';
import { ChatCorpus } from '../corpus';
import { count } from '../format';
import { progress } from '../log';
import type { BenchPlan } from '../options';
import type { HostileResult, HostileRow } from '../results';
import { summarize, timed } from '../stats';
import { type Channel, channelOf, ChatWorkload, openEngine, PERSONA, Snowflakes } from '../workload';

/** Messages of one hostile turn, and the characters of each (Discord's longest message). */
const TURN_MESSAGES = 50;
const MESSAGE_CHARS = 4_000;
/** Messages of the longest history a turn may hold; capture reads its newest RECORDED_HISTORY_MESSAGES. */
const LONG_HISTORY = MAX_TURN_HISTORY;
/** Made-up messages the older part of a long history is drawn from: only its newest part is fresh, as in a channel's backlog. */
const BACKLOG_TEXTS = 200;
/** Distinct words of the long query. */
const QUERY_WORDS = 20_000;

type Random = () => number;
const letters = 'abcdefghijklmnopqrstuvwxyz';
const letter = (random: Random) => letters[Math.floor(random() * 26)]!;
const EMOJI = ['👨‍👩‍👧‍👦', '🏳️‍🌈', '🧑🏽‍💻', '😀', '🫶🏿', '👩‍❤️‍💋‍👨', '🇯🇵'];
const MARKS = ['\u0301', '\u0323', '\u0308', '\u0330', '\u036f', '\u20d7'];

/**
 * Up to `chars` UTF-16 units of `next()`'s pieces, as one flat string: a bot's messages are parsed from the gateway's JSON,
 * never built up by concatenation (V8 would keep such a string as a rope of 4,000 pieces, which the first regular
 * expression to read it must flatten, some 130 µs a message).
 */
function filled(chars: number, next: () => string): string {
	const pieces: string[] = [];
	let length = 0;
	for (let piece = next(); length + piece.length <= chars; piece = next()) {
		pieces.push(piece);
		length += piece.length;
	}
	return pieces.join('');
}

/** A made-up word of 3 to 10 letters. */
function madeUpWord(random: Random): string {
	return filled(3 + Math.floor(random() * 8), () => letter(random));
}

/** The messages a hostile member sends, each 4,000 characters and each different (nothing is cached from one to the next). */
const MESSAGE_KINDS: readonly [string, (random: Random) => string][] = [
	['CJK', (random) => filled(MESSAGE_CHARS, () => String.fromCodePoint(0x4e00 + Math.floor(random() * 20_000)))],
	['one unbroken word', (random) => filled(MESSAGE_CHARS, () => letter(random))],
	['emoji', (random) => filled(MESSAGE_CHARS, () => EMOJI[Math.floor(random() * EMOJI.length)]!)],
	['combining marks', (random) => filled(MESSAGE_CHARS, () => letter(random) + MARKS[Math.floor(random() * MARKS.length)]!.repeat(5))],
	['made-up words', (random) => filled(MESSAGE_CHARS, () => `${madeUpWord(random)} `).trimEnd()]
];

/** The kind whose turns hold the longest history, beside made-up words at 50 a turn. */
const LONG_HISTORY_KIND = `made-up words, ${count(LONG_HISTORY)} a turn`;

/** What one kind of traffic is: its turns' messages, and what the request asked after each turn changes. */
interface Traffic {
	kind: string;
	messages: (channel: Channel) => string[];
	ask: () => Partial<ContextRequest>;
}

/**
 * Section 1e: what hostile members can make one call cost, side by side with ordinary chat in the same run. Each kind of
 * traffic has a channel of its own on one SQLite store (seeded with ordinary chat, so that its archive answers): turns of
 * 50 messages of 4,000 characters in CJK, one unbroken word, emoji, combining marks and made-up words; ordinary turns with a
 * query of 20,000 distinct words, or with the largest budget a request may ask. After each timed turn, a timed context is
 * asked in the channel, the event loop turning between calls, as between two Discord events; the longest block of the
 * event loop while a kind ran is read from `perf_hooks.monitorEventLoopDelay`.
 */
export async function runHostile(plan: BenchPlan): Promise<HostileResult> {
	const { samples, warmup, seedTurns } = plan.hostile;
	const prepared = await prepareStore('sqlite');
	if (!prepared.store) throw new Error(`skipped: ${prepared.skipped}`);
	const { store } = prepared;
	const corpus = new ChatCorpus(515);
	const workload = new ChatWorkload(corpus);
	const random = () => corpus.random();
	const engine = await openEngine(store.storeUrl, workload.clock, { storeNamespace: store.namespace, ...store.config });
	const ids = new Snowflakes();
	const madeUpMessage = MESSAGE_KINDS.find(([kind]) => kind === 'made-up words')![1];
	// Drawn when the kind first runs, so that the kinds before it draw the texts they always did.
	const backlog: string[] = [];
	const ordinary = (messages: number) => () => Array.from({ length: messages }, () => corpus.message());
	const traffic: Traffic[] = [
		{ kind: 'ordinary chat', messages: ordinary(1), ask: () => ({}) },
		{ kind: 'ordinary, 50 a turn', messages: ordinary(TURN_MESSAGES), ask: () => ({}) },
		...MESSAGE_KINDS.map(([kind, make]) => ({
			kind,
			messages: () => Array.from({ length: TURN_MESSAGES }, () => make(random)),
			ask: () => ({})
		})),
		{
			kind: LONG_HISTORY_KIND,
			// The older messages repeat a backlog (200 texts: fresh ones would take some 400 MB over a full run); the newest are all fresh.
			messages: () => {
				if (backlog.length === 0) backlog.push(...Array.from({ length: BACKLOG_TEXTS }, () => madeUpMessage(random)));
				return [
					...Array.from({ length: LONG_HISTORY - TURN_MESSAGES }, () => backlog[Math.floor(random() * BACKLOG_TEXTS)]!),
					...Array.from({ length: TURN_MESSAGES }, () => madeUpMessage(random))
				];
			},
			ask: () => ({})
		},
		{
			kind: `query of ${count(QUERY_WORDS)} words`,
			messages: ordinary(1),
			ask: () => ({ query: Array.from({ length: QUERY_WORDS }, () => madeUpWord(random)).join(' ') })
		},
		{
			kind: `budget ${count(MAX_CONTEXT_TOKEN_BUDGET)}`,
			messages: ordinary(1),
			ask: () => ({ tokenBudget: MAX_CONTEXT_TOKEN_BUDGET })
		}
	];
	const turnOf = (channel: Channel, texts: string[]): MemoryTurn => {
		const at = workload.clock.tick();
		const history = texts.map((text, index) => {
			const author = channel.members[index % channel.members.length]!;
			const timestamp = at - (texts.length - index) * 10;
			return { role: 'user' as const, authorId: author.id, authorName: author.name, text, messageId: ids.next(timestamp), timestamp };
		});
		const last = channel.members[(texts.length - 1) % channel.members.length]!;
		return {
			userId: last.id,
			userName: last.name,
			serverId: channel.serverId,
			channelId: channel.channelId,
			timestamp: at,
			history,
			responses: [{ text: corpus.message(), personaId: PERSONA.id, personaName: PERSONA.name, messageId: ids.next(at) }]
		};
	};

	const rows: HostileRow[] = [];
	const delay = monitorEventLoopDelay({ resolution: 1 });
	try {
		for (const [number, { kind, messages, ask }] of traffic.entries()) {
			const channel = channelOf(7, 700 + number);
			for (let turn = 0; turn < seedTurns; turn++) await engine.recordTurn(turnOf(channel, ordinary(1)()));
			// Written before the clock starts: making 200,000 characters of random text takes the bench itself some 50 ms a
			// turn, and a query of 20,000 words 15 to 20 ms, which the event loop's longest block would otherwise count (a
			// bot's messages arrive written).
			const texts = Array.from({ length: warmup + samples }, () => messages(channel));
			const asks = Array.from({ length: warmup + samples }, ask);
			const record: number[] = [];
			const context: number[] = [];
			for (let turn = 0; turn < warmup + samples; turn++) {
				const measured = turn >= warmup;
				if (turn === warmup) delay.enable();
				const recorded = turnOf(channel, texts[turn]!);
				await nextTurn();
				const [, recordMs] = await timed(() => engine.recordTurn(recorded));
				const asked = { ...workload.request(channel, channel.members[0]), ...asks[turn] };
				await nextTurn();
				const [, contextMs] = await timed(() => engine.buildContext(asked));
				if (measured) {
					record.push(recordMs);
					context.push(contextMs);
				}
			}
			delay.disable();
			rows.push({ kind, recordTurn: summarize(record), buildContext: summarize(context), longestBlockMs: delay.max / 1e6 });
			delay.reset();
			progress(`hostile: ${kind} done`);
		}
	} finally {
		await engine.close();
		await store.dispose();
	}
	return {
		turnMessages: TURN_MESSAGES,
		messageChars: MESSAGE_CHARS,
		samples,
		rows,
		longHistory: { kind: LONG_HISTORY_KIND, messages: LONG_HISTORY }
	};
}
