import type Keyv from 'keyv';
// The engine's own modules, not the package's entry: that one loads discord.js and Sapphire too, which a bot
// loads anyway and which would count in the memory section's figure (some 38 MiB).
import type { MemoryConfig } from '../src/engine';
import type { MemoryEngine } from '../src/engine';
import { MemoryEngine as Engine } from './engine';
import type { ContextRequest, MemoryTurn } from '../src/engine';
import type { ChatCorpus } from './corpus';
import { engineLogger } from './log';

const DAY_MS = 86_400_000;
const DISCORD_EPOCH = 1_420_070_400_000n;
/** Members talking in each server. */
export const MEMBERS_PER_SERVER = 20;
export const PERSONA = { id: 'sol', name: 'Sol' } as const;
const NAMES = [
	'Maya',
	'Theo',
	'Iris',
	'Jonas',
	'Priya',
	'Leo',
	'Noor',
	'Sam',
	'Ada',
	'Kenji',
	'Lina',
	'Omar',
	'Zoe',
	'Felix',
	'Hana',
	'Ravi',
	'Elena',
	'Tom',
	'Yuki',
	'Bea'
];

/** The engine's clock: starts a few days before now, moved forward by the workload (about a second per turn). */
export class BenchClock {
	public current = Date.now() - 4 * DAY_MS;
	public readonly now = (): number => this.current;
	public tick(ms = 1_000): number {
		return (this.current += ms);
	}
}

/** Discord-like snowflakes: the time in the high bits, strictly increasing. */
export class Snowflakes {
	private last = 0n;
	public next(timestamp: number): string {
		const candidate = (BigInt(timestamp) - DISCORD_EPOCH) << 22n;
		this.last = candidate > this.last ? candidate : this.last + 1n;
		return this.last.toString();
	}
}

export interface Member {
	id: string;
	name: string;
}

export interface Channel {
	serverId: string;
	channelId: string;
	members: readonly Member[];
}

export function serverId(server: number): string {
	return (900_000_000_000_000_000n + BigInt(server)).toString();
}

export function channelId(channel: number): string {
	return (910_000_000_000_000_000n + BigInt(channel)).toString();
}

const serverMembers = new Map<number, readonly Member[]>();

/** The 20 members of server number `server`; one shared array per server, so many channels cost the bench nothing. */
export function membersOf(server: number): readonly Member[] {
	let members = serverMembers.get(server);
	if (!members) {
		members = NAMES.slice(0, MEMBERS_PER_SERVER).map((name, index) => ({
			id: (800_000_000_000_000_000n + BigInt(server * 1_000 + index)).toString(),
			name
		}));
		serverMembers.set(server, members);
	}
	return members;
}

/** Channel number `channel` of server number `server`, with that server's members. */
export function channelOf(server: number, channel: number): Channel {
	return { serverId: serverId(server), channelId: channelId(channel), members: membersOf(server) };
}

/** Builds the turns and requests of a chatting guild, reproducibly from one corpus. */
export class ChatWorkload {
	public readonly clock = new BenchClock();
	private readonly ids = new Snowflakes();

	public constructor(private readonly corpus: ChatCorpus) {}

	/** A random member of `channel`. */
	public member(channel: Channel): Member {
		return channel.members[Math.floor(this.corpus.random() * channel.members.length)]!;
	}

	/** One member message and the persona's reply: a turn of a bot answering one message. */
	public turn(channel: Channel, author = this.member(channel)): MemoryTurn {
		return this.busyTurn(channel, 1, author);
	}

	/**
	 * `memberMessages` new messages from as many different members, the last by `lastAuthor`, then the
	 * persona's reply: how a bot that only answers now and then records a busy channel. Moves the clock a second.
	 */
	public busyTurn(channel: Channel, memberMessages: number, lastAuthor = this.member(channel)): MemoryTurn {
		const at = this.clock.tick();
		const others =
			memberMessages > 1 ? this.shuffled(channel.members.filter((member) => member.id !== lastAuthor.id)).slice(0, memberMessages - 1) : [];
		const authors = [...others, lastAuthor];
		const history = authors.map((author, index) => {
			const timestamp = at - (authors.length - index) * 40;
			return {
				role: 'user' as const,
				authorId: author.id,
				authorName: author.name,
				text: this.corpus.message(),
				messageId: this.ids.next(timestamp),
				timestamp
			};
		});
		return {
			userId: lastAuthor.id,
			userName: lastAuthor.name,
			serverId: channel.serverId,
			channelId: channel.channelId,
			timestamp: at,
			history,
			responses: [{ text: this.corpus.message(), personaId: PERSONA.id, personaName: PERSONA.name, messageId: this.ids.next(at) }]
		};
	}

	/** A member of `channel` asks the persona something; default budget. */
	public request(channel: Channel, asker = this.member(channel)): ContextRequest {
		return { userId: asker.id, serverId: channel.serverId, channelId: channel.channelId, personaId: PERSONA.id, query: this.corpus.question() };
	}

	/** Fisher–Yates with the corpus's seeded random. */
	public shuffled<T>(items: readonly T[]): T[] {
		const copy = [...items];
		for (let at = copy.length - 1; at > 0; at--) {
			const other = Math.floor(this.corpus.random() * (at + 1));
			[copy[at], copy[other]] = [copy[other]!, copy[at]!];
		}
		return copy;
	}
}

/** Messages a turn adds to its channel. */
export function messagesIn(turn: MemoryTurn): number {
	return turn.history.length + turn.responses.length;
}

/**
 * Opens an engine for the bench: no background sweep, the workload's clock, no settings from the environment; on `keyv`
 * when given (a store wrapped to measure it), else on `storeUrl`.
 */
export function openEngine(storeUrl: string, clock: BenchClock, config: Partial<MemoryConfig> = {}, keyv?: Keyv): Promise<MemoryEngine> {
	return Engine.open({ storeUrl, keyv, env: {}, config: { sweepIntervalMinutes: 0, ...config }, now: clock.now, logger: engineLogger });
}
