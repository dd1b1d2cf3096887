// The engine's own modules, not the package entry: the child process starts without loading discord.js.
import type { MemoryTurn, TurnMessage } from '../../src/engine/schemas';
import { liveScopeKey } from './store-inspection';
import { CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, OTHER_GUILD, THEO, THIRD_CHANNEL } from './turns';

/**
 * The stream of turns the crash test's child process records, one sequential loop per stream, all
 * streams at once. Every id and word follows from (round, stream, n), so the parent knows what a
 * printed confirmation promised without being told more than the turn's time.
 */
export interface CrashStream {
	serverId: string | null;
	channelId: string;
	parentChannelId?: string;
	users: readonly { id: string; name: string }[];
	personas: readonly string[];
}

export const CRASH_STREAMS: readonly CrashStream[] = [
	// A busy guild channel with two members.
	{ serverId: GUILD, channelId: CHANNEL, users: [MAYA, THEO], personas: ['sol'] },
	// A thread of it.
	{ serverId: GUILD, channelId: THIRD_CHANNEL, parentChannelId: CHANNEL, users: [NOVA], personas: ['sol'] },
	// A DM.
	{ serverId: null, channelId: DM_CHANNEL, users: [MAYA], personas: ['sol'] },
	// Another guild where two personas answer each turn: two writes per turn.
	{ serverId: OTHER_GUILD, channelId: OTHER_CHANNEL, users: [THEO, NOVA], personas: ['sol', 'luna'] }
];

/** How many earlier turns of its stream a turn's history repeats, as a bot's fetched history does. */
export const HISTORY_TURNS = 3;

/** A word found in no other turn: letters only, ending in "x" so no stemmer rule touches it. */
export function crashWord(round: number, stream: number, n: number): string {
	let value = round * 1_000_000 + stream * 100_000 + n;
	let letters = '';
	do {
		letters = String.fromCharCode(97 + (value % 26)) + letters;
		value = Math.floor(value / 26);
	} while (value > 0);
	return `zq${letters}x`;
}

/** The messages one turn adds: the member's message and one reply per persona. */
export function crashTurnParts(round: number, stream: number, n: number) {
	const spec = CRASH_STREAMS[stream]!;
	const user = spec.users[n % spec.users.length]!;
	const word = crashWord(round, stream, n);
	const prefix = `r${round}-s${stream}-n${n}`;
	return {
		spec,
		user,
		word,
		message: { id: `${prefix}-u`, text: `${user.name} mentions ${word} in message ${n}` },
		replies: spec.personas.map((personaId) => ({ personaId, id: `${prefix}-${personaId}`, text: `${personaId} answers about ${word}` })),
		/** The live scope (and archive) of each persona: the server scope in a guild, the user scope in a DM. */
		scopes: spec.personas.map((personaId) => liveScopeKey({ userId: user.id, serverId: spec.serverId, channelId: spec.channelId, personaId }))
	};
}

/** A turn recorded (or started) at `at`, as `crashTurn` builds it. */
export interface StartedTurn {
	round: number;
	stream: number;
	n: number;
	at: number;
}

/** The history entries of an earlier turn, as a bot would fetch them again. */
function asHistory(turn: StartedTurn): TurnMessage[] {
	const parts = crashTurnParts(turn.round, turn.stream, turn.n);
	return [
		{
			role: 'user',
			authorId: parts.user.id,
			authorName: parts.user.name,
			text: parts.message.text,
			messageId: parts.message.id,
			timestamp: turn.at
		},
		...parts.replies.map(
			(reply, index): TurnMessage => ({
				role: 'persona',
				authorId: reply.personaId,
				authorName: reply.personaId,
				text: reply.text,
				messageId: reply.id,
				timestamp: turn.at + 1 + index
			})
		)
	];
}

/** Turn `n` of `stream` in `round` at `at`, its history repeating `earlier` (oldest first). */
export function crashTurn(round: number, stream: number, n: number, at: number, earlier: readonly StartedTurn[]): MemoryTurn {
	const parts = crashTurnParts(round, stream, n);
	return {
		userId: parts.user.id,
		userName: parts.user.name,
		serverId: parts.spec.serverId,
		channelId: parts.spec.channelId,
		parentChannelId: parts.spec.parentChannelId ?? null,
		history: [
			...earlier.flatMap(asHistory),
			{
				role: 'user',
				authorId: parts.user.id,
				authorName: parts.user.name,
				text: parts.message.text,
				messageId: parts.message.id,
				timestamp: at
			}
		],
		responses: parts.replies.map((reply) => ({
			text: reply.text,
			personaId: reply.personaId,
			personaName: reply.personaId,
			messageId: reply.id
		})),
		timestamp: at
	};
}
