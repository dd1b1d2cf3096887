/**
 * The world of the isolation and privacy matrix (test/engine/isolation-matrix.test.ts): three guilds
 * with channels, threads and a private channel, members at every privacy level (two of whom change
 * level half-way), DMs, two personas of one lineage, one of another, and a bot without personas. It
 * plays a seeded stream of turns through an engine, knowing for every message (each opens with a
 * unique marker word) who wrote it, where, at which privacy level, and into which short-term scopes
 * docs/design.md's capture rules put it; `allowed` then says, from docs/design.md's context rules alone, whether
 * a marker may appear in a given context.
 */
import type { ContextRequest, MemoryEngine, MemoryTurn, TurnMessage, TurnResponse } from '../../src';
import { PrivacyLevel } from '../../src';
import { liveScopeKey, serverScopeKey, userScopeKey } from './store-inspection';

export interface Persona {
	id: string | null;
	name: string;
	lineage: string | null;
}

/** Aria and Aurora share the lineage `muse`; Nyx is `night`; the last is a bot without personas. */
export const PERSONAS: readonly Persona[] = [
	{ id: 'aria', name: 'Aria', lineage: 'muse' },
	{ id: 'aurora', name: 'Aurora', lineage: 'muse' },
	{ id: 'nyx', name: 'Nyx', lineage: 'night' },
	{ id: null, name: 'Helper', lineage: null }
];

export interface Place {
	/** null in a DM. */
	serverId: string | null;
	channelId: string;
	parentChannelId: string | null;
}

interface Guild {
	id: string;
	channels: Place[];
	/** Set with `setServerSettings`: the private channel (its thread is private through its parent). */
	privateChannelIds: string[];
}

const channel = (serverId: string, channelId: string, parentChannelId: string | null = null): Place => ({ serverId, channelId, parentChannelId });

export const GUILDS: readonly Guild[] = [
	{
		id: '900000000000000001',
		channels: [
			channel('900000000000000001', '901000000000000001'), // #general
			channel('900000000000000001', '901000000000000002'), // #random
			channel('900000000000000001', '901000000000000003', '901000000000000001'), // a thread of #general
			channel('900000000000000001', '901000000000000004'), // #staff, private
			channel('900000000000000001', '901000000000000005', '901000000000000004') // a thread of #staff
		],
		privateChannelIds: ['901000000000000004']
	},
	{
		id: '900000000000000002',
		channels: [
			channel('900000000000000002', '902000000000000001'),
			channel('900000000000000002', '902000000000000002'),
			channel('900000000000000002', '902000000000000003', '902000000000000001')
		],
		privateChannelIds: []
	},
	{
		id: '900000000000000003',
		channels: [channel('900000000000000003', '903000000000000001'), channel('900000000000000003', '903000000000000002')],
		privateChannelIds: []
	}
];

const G1 = GUILDS[0]!;
const G2 = GUILDS[1]!;
const G3 = GUILDS[2]!;
const STAFF = [G1.channels[3]!.channelId, G1.channels[4]!.channelId];

export interface Member {
	id: string;
	name: string;
	/** The level they start with, and the one they switch to half-way (if any). */
	level: PrivacyLevel;
	switchTo?: PrivacyLevel;
	crossServerOptIn: boolean;
	/** Their DM channels with the bot. */
	dms: string[];
	/** The guild channels they can view (Discord's View Channel): where they speak, and `visibleChannelIds`. */
	views: string[];
}

const all = (guild: Guild, except: string[] = []) => guild.channels.map((place) => place.channelId).filter((id) => !except.includes(id));

export const MEMBERS: readonly Member[] = [
	{
		id: '700000000000000001',
		name: 'Maya',
		level: PrivacyLevel.MINIMAL,
		crossServerOptIn: true,
		dms: ['980000000000000001', '980000000000000002'],
		views: [...all(G1), ...all(G2)]
	},
	{
		id: '700000000000000002',
		name: 'Theo',
		level: PrivacyLevel.MINIMAL,
		crossServerOptIn: false,
		dms: ['980000000000000003'],
		views: [...all(G1, STAFF), ...all(G2, [G2.channels[2]!.channelId])]
	},
	{
		id: '700000000000000003',
		name: 'Nova',
		level: PrivacyLevel.PARTIAL,
		crossServerOptIn: true,
		dms: ['980000000000000004'],
		views: [...all(G1, STAFF), ...all(G3)]
	},
	{
		id: '700000000000000004',
		name: 'Zed',
		level: PrivacyLevel.PARTIAL,
		crossServerOptIn: false,
		dms: ['980000000000000005'],
		views: [...all(G2), ...all(G3)]
	},
	{
		id: '700000000000000005',
		name: 'Ghost',
		level: PrivacyLevel.FULL,
		crossServerOptIn: true,
		dms: ['980000000000000006'],
		views: [...all(G1, STAFF), ...all(G2)]
	},
	{
		id: '700000000000000006',
		name: 'Lena',
		level: PrivacyLevel.MINIMAL,
		switchTo: PrivacyLevel.FULL,
		crossServerOptIn: true,
		dms: ['980000000000000007'],
		views: [...all(G1), ...all(G3)]
	},
	{
		id: '700000000000000007',
		name: 'Omar',
		level: PrivacyLevel.FULL,
		switchTo: PrivacyLevel.MINIMAL,
		crossServerOptIn: true,
		dms: ['980000000000000008'],
		views: [...all(G2), ...all(G3)]
	},
	{
		id: '700000000000000008',
		name: 'Iris',
		level: PrivacyLevel.MINIMAL,
		crossServerOptIn: true,
		dms: ['980000000000000009'],
		views: [G3.channels[0]!.channelId]
	}
];

/** Words every message carries one of, and every query names, so the relevant tier has something to rank. */
const WORDS = ['pizza', 'guitar', 'porto', 'garden', 'exam', 'kitten', 'concert', 'hiking', 'recipe', 'deadline'];
export const QUERY = 'pizza guitar porto garden exam kitten concert hiking recipe deadline';

/** A marker word: `iso<n>x`, unique to one message, profile note or topic. */
export const MARKER = /iso\d+x/g;

export interface MarkerMeta {
	marker: string;
	kind: 'message' | 'profile';
	role: 'user' | 'persona';
	/** The member who wrote it (or owns the profile); a persona's id (null for the bot without personas). */
	authorId: string | null;
	place: Place;
	messageId: string;
	ts: number;
	/** Written while its author was FULL, or a reply to a turn its trigger made while FULL: never stored, never shown. */
	hidden: boolean;
	/** Erased when its author (or the member whose turn it answered) chose FULL later: gone from then on, never shown again. */
	erased: boolean;
	/** A persona reply: the member whose turn it answered, whose words it carries. */
	repliesTo: string | null;
	/** The short-term keys capture writes it to (docs/design.md: Capture). */
	keys: Set<string>;
}

/** What the world knows of one short-term scope it wrote. */
export interface SimulatedScope {
	key: string;
	scope: 'user' | 'server';
	/** The member of a user scope. */
	ownerId: string | null;
	/** `"DM"` in DMs. */
	serverId: string;
	channelId: string;
	parentChannelId: string | null;
	lineage: string | null;
	/** Message id → time and marker, as merged by capture. */
	messages: Map<string, { ts: number; marker: string }>;
}

/** Whether a marker carries `userId`'s words: theirs, or a persona's reply to their turn (the engine's rule, stated again). */
function carriesWordsOf(meta: Pick<MarkerMeta, 'role' | 'authorId' | 'repliesTo'>, userId: string): boolean {
	return meta.role === 'persona' ? meta.repliesTo === userId : meta.authorId === userId;
}

/** Never to be stored again: written while FULL, or erased since. */
function gone(meta: MarkerMeta): boolean {
	return meta.hidden || meta.erased;
}

/** A small seeded generator, so that a failing world can be replayed. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}

export const placeOf = (channelId: string): Place => {
	for (const guild of GUILDS) for (const place of guild.channels) if (place.channelId === channelId) return place;
	return { serverId: null, channelId, parentChannelId: null };
};

export const lineageOf = (persona: Persona) => persona.lineage ?? persona.id;

/** Options of {@link IsolationWorld.play}. */
export interface PlayOptions {
	/** Steps (a turn or a message nobody answers) before and after the two members switch level. */
	steps: number;
	seed: number;
	/** Called between the two halves, before the switches (e.g. to let the background summarizer finish). */
	beforeSwitch?: () => Promise<void>;
}

export class IsolationWorld {
	public readonly markers = new Map<string, MarkerMeta>();
	public readonly scopes = new Map<string, SimulatedScope>();
	public readonly levels = new Map<string, PrivacyLevel>();
	/** Turns the engine wrote, and skipped by reason. */
	public readonly turns = { written: 0, skipped: {} as Record<string, number> };
	private readonly logs = new Map<string, TurnMessage[]>();
	private readonly metaById = new Map<string, MarkerMeta>();
	private markerCount = 0;
	private nextId = 1_300_000_000_000_000_000n;
	private clock: number;

	public constructor(
		private readonly engine: MemoryEngine,
		start: number,
		private readonly advance: (ms: number) => void,
		/** `SHORT_TERM_MEMORY_MAX_MESSAGES_PER_CHANNEL` of the engine. */
		private readonly window: number
	) {
		this.clock = start;
	}

	public member(id: string): Member {
		return MEMBERS.find((member) => member.id === id)!;
	}

	/**
	 * Sets every member's level and opt-in, and the private channel; saves a profile and a topic for
	 * each member who may keep one. Returns the codes the others were refused with, by member id.
	 */
	public async setUp(): Promise<Record<string, string>> {
		for (const guild of GUILDS)
			if (guild.privateChannelIds.length > 0) await this.engine.setServerSettings(guild.id, { privateChannelIds: guild.privateChannelIds });
		for (const member of MEMBERS) {
			await this.engine.setUserSettings(member.id, { privacyLevel: member.level, crossServerOptIn: member.crossServerOptIn });
			this.levels.set(member.id, member.level);
		}
		return this.saveLongTerm();
	}

	/** Profiles and topics of the members who may keep them; the others are refused. Returns the refusals' codes. */
	public async saveLongTerm(): Promise<Record<string, string>> {
		const refused: Record<string, string> = {};
		for (const member of MEMBERS) {
			const note = this.profileMarker(member.id);
			const topic = this.profileMarker(member.id);
			try {
				await this.engine.updateProfile(member.id, { notes: [`${note} likes quiet mornings`] });
				await this.engine.saveTopic(member.id, `Garden of ${member.name} ${topic}`, `${topic} tomatoes along the garden fence`);
			} catch (error) {
				refused[member.id] = (error as { code?: string }).code ?? String(error);
				this.markers.delete(note);
				this.markers.delete(topic);
			}
		}
		return refused;
	}

	/** The seeded stream: `steps` steps, the level switches, `steps` more. */
	public async play(options: PlayOptions): Promise<void> {
		const next = random(options.seed);
		for (let step = 0; step < options.steps; step++) await this.step(next);
		await options.beforeSwitch?.();
		for (const member of MEMBERS) {
			if (member.switchTo === undefined) continue;
			await this.engine.setUserSettings(member.id, { privacyLevel: member.switchTo });
			this.levels.set(member.id, member.switchTo);
			if (member.switchTo === PrivacyLevel.FULL) this.erase(member.id);
		}
		await this.saveLongTerm();
		// Right after the switch, each of them speaks wherever they can, and the bot's history reaches back over what they said before.
		for (const member of MEMBERS.filter((candidate) => candidate.switchTo !== undefined)) {
			for (const channelId of [...member.views, ...member.dms]) {
				const place = placeOf(channelId);
				await this.turn(member, place, this.post(member, place, 'again'), 9, [PERSONAS[0]!], false, false);
			}
		}
		for (let step = 0; step < options.steps; step++) await this.step(next);
	}

	/**
	 * Every request of the matrix: each member, in every guild channel and thread (with and without
	 * `visibleChannelIds`) and every DM channel, with every persona.
	 */
	public requests(): ContextRequest[] {
		const requests: ContextRequest[] = [];
		const dms = MEMBERS.flatMap((member) => member.dms);
		for (const member of MEMBERS) {
			for (const persona of PERSONAS) {
				const base = { userId: member.id, personaId: persona.id, personaLineageId: persona.lineage, query: QUERY };
				for (const guild of GUILDS) {
					for (const place of guild.channels) {
						requests.push({ ...base, ...place });
						// What the member can view of this guild; the channel asked from always.
						const views = new Set([...member.views.filter((id) => placeOf(id).serverId === guild.id), place.channelId]);
						requests.push({ ...base, ...place, visibleChannelIds: [...views] });
					}
				}
				// Their own DMs, and other members' DM channel ids too: those must show nothing of the other member.
				for (const dm of dms) requests.push({ ...base, serverId: null, channelId: dm, parentChannelId: null });
			}
		}
		return requests;
	}

	/**
	 * Whether docs/design.md lets `meta` appear in the context of `request`, as things stand now: the same
	 * live scope; another channel of the same guild and lineage (not private unless asked from it or
	 * its thread, and viewable when the request names what the member can view); the asker's own words
	 * and the personas' replies from another server or a DM with their opt-in; their own other DMs. Never
	 * anything of a member who is FULL now, nor what was written while FULL. Profile notes and topics
	 * only to their owner.
	 */
	public allowed(request: ContextRequest, meta: MarkerMeta): boolean {
		if (meta.hidden || meta.erased) return false;
		if (meta.role === 'user' && this.levels.get(meta.authorId!) === PrivacyLevel.FULL) return false;
		if (meta.kind === 'profile') return meta.authorId === request.userId && this.levels.get(request.userId) === PrivacyLevel.MINIMAL;
		const here = request.serverId ?? 'DM';
		const live = liveScopeKey(request);
		const lineage = request.personaLineageId ?? request.personaId ?? null;
		const optIn = this.member(request.userId).crossServerOptIn;
		const visible = request.visibleChannelIds ? new Set(request.visibleChannelIds) : null;
		for (const key of meta.keys) {
			if (key === live) return true;
			const scope = this.scopes.get(key)!;
			if (scope.channelId === request.channelId || scope.lineage !== lineage || !this.outsidePrivate(scope, request)) continue;
			if (scope.scope === 'server') {
				if (scope.serverId === here && (!visible || visible.has(scope.channelId))) return true;
				continue;
			}
			if (scope.ownerId !== request.userId) continue;
			// The member's own other DMs follow them from DM to DM; other servers (and DMs, seen from a guild) need their opt-in,
			// and show only their words and the personas'.
			if (scope.serverId === 'DM' && here === 'DM') return true;
			if (scope.serverId !== here && optIn && carriesWordsOf(meta, request.userId)) return true;
		}
		return false;
	}

	/** Markers the recent tier must show: the asker's own messages in the newest window of the live scope. */
	public promisedRecent(request: ContextRequest): string[] {
		if (this.levels.get(request.userId) === PrivacyLevel.FULL) return [];
		const scope = this.scopes.get(liveScopeKey(request));
		if (!scope) return [];
		const window = [...scope.messages].sort(([idA, a], [idB, b]) => a.ts - b.ts || (idA < idB ? -1 : 1)).slice(-this.window);
		return window
			.map(([, { marker }]) => this.markers.get(marker)!)
			.filter((meta) => meta.role === 'user' && meta.authorId === request.userId && !meta.hidden && !meta.erased)
			.map((meta) => meta.marker);
	}

	/** Whether a member's export may hold `meta`: their own words and profile, and the personas' replies to their turns. */
	public exportable(userId: string, meta: MarkerMeta): boolean {
		if (meta.hidden || meta.erased) return false;
		return carriesWordsOf(meta, userId);
	}

	public markersIn(text: string): MarkerMeta[] {
		return [...new Set(text.match(MARKER) ?? [])].flatMap((marker) => {
			const meta = this.markers.get(marker);
			return meta ? [meta] : [];
		});
	}

	private outsidePrivate(scope: SimulatedScope, request: ContextRequest): boolean {
		const guild = GUILDS.find((candidate) => candidate.id === scope.serverId);
		const home = [scope.channelId, scope.parentChannelId].filter(
			(id): id is string => id !== null && (guild?.privateChannelIds.includes(id) ?? false)
		);
		if (home.length === 0) return true;
		return scope.serverId === request.serverId && home.some((id) => id === request.channelId || id === request.parentChannelId);
	}

	private profileMarker(ownerId: string): string {
		const marker = `iso${this.markerCount++}x`;
		this.markers.set(marker, {
			marker,
			kind: 'profile',
			role: 'user',
			authorId: ownerId,
			place: { serverId: null, channelId: '', parentChannelId: null },
			messageId: '',
			ts: 0,
			hidden: false,
			erased: false,
			repliesTo: null,
			keys: new Set()
		});
		return marker;
	}

	private async step(next: () => number): Promise<void> {
		const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
		const member = pick(MEMBERS);
		const places = [...member.views, ...member.dms];
		const place = placeOf(pick(places));
		const message = this.post(member, place, pick(WORDS));
		if (next() < 0.2) return; // nobody answers
		const responders = next() < 0.8 ? [pick(PERSONAS)] : [...new Set([pick(PERSONAS), pick(PERSONAS)])];
		const roll = next();
		// A FULL member's own turns sometimes say so themselves, as a host with its own privacy setting does.
		const flagFull = this.levels.get(member.id) === PrivacyLevel.FULL && next() < 0.5;
		await this.turn(member, place, message, Math.floor(next() * 10), roll < 0.04 ? [] : responders, roll > 0.96, flagFull);
	}

	/** A member posts a message; it joins the channel's log, which later histories draw from. */
	private post(member: Member, place: Place, word: string): TurnMessage {
		this.advance(20_000);
		this.clock += 20_000;
		const marker = `iso${this.markerCount++}x`;
		const messageId = String(this.nextId++);
		const message: TurnMessage = {
			role: 'user',
			authorId: member.id,
			authorName: member.name,
			text: `${marker} talks about ${word} again`,
			messageId,
			timestamp: this.clock
		};
		const meta: MarkerMeta = {
			marker,
			kind: 'message',
			role: 'user',
			authorId: member.id,
			place,
			messageId,
			ts: this.clock,
			hidden: this.levels.get(member.id) === PrivacyLevel.FULL,
			erased: false,
			repliesTo: null,
			keys: new Set()
		};
		this.markers.set(marker, meta);
		this.metaById.set(messageId, meta);
		this.log(place).push(message);
		return message;
	}

	private async turn(
		member: Member,
		place: Place,
		trigger: TurnMessage,
		earlier: number,
		responders: Persona[],
		stop: boolean,
		flagFull: boolean
	): Promise<void> {
		const log = this.log(place);
		const history = log.slice(-(earlier + 1));
		const at = trigger.timestamp!;
		const triggeredWhileFull = this.levels.get(member.id) === PrivacyLevel.FULL;
		const responses: TurnResponse[] = [];
		const replies: TurnMessage[] = [];
		for (const [index, persona] of responders.entries()) {
			const marker = `iso${this.markerCount++}x`;
			const messageId = String(this.nextId++);
			const text = `${marker} answers about ${WORDS[this.markerCount % WORDS.length]}`;
			responses.push({ text, personaId: persona.id, personaLineageId: persona.lineage, personaName: persona.name, messageId });
			replies.push({
				role: 'persona',
				authorId: persona.id ?? undefined,
				authorName: persona.name,
				text,
				messageId,
				timestamp: at + 1 + index
			});
			const meta: MarkerMeta = {
				marker,
				kind: 'message',
				role: 'persona',
				authorId: persona.id,
				place,
				messageId,
				ts: at + 1 + index,
				hidden: triggeredWhileFull,
				erased: false,
				repliesTo: member.id,
				keys: new Set()
			};
			this.markers.set(marker, meta);
			this.metaById.set(messageId, meta);
		}
		const turn: MemoryTurn = {
			userId: member.id,
			userName: member.name,
			serverId: place.serverId,
			channelId: place.channelId,
			parentChannelId: place.parentChannelId,
			history,
			responses,
			isStopResponse: stop,
			timestamp: at,
			...(flagFull ? { privacyLevel: PrivacyLevel.FULL } : {})
		};
		const result = await this.engine.recordTurn(structuredClone(turn));
		if (result.written) this.turns.written++;
		else this.turns.skipped[result.skippedReason!] = (this.turns.skipped[result.skippedReason!] ?? 0) + 1;
		const expected = !stop && !triggeredWhileFull && responses.length > 0;
		if (result.written !== expected)
			throw new Error(`turn ${trigger.text} was ${result.written ? 'written' : `skipped (${result.skippedReason})`}, expected the opposite`);
		if (result.written) this.capture(member, place, history, responders, replies);
		// Replies Discord accepted join the channel, those to a turn triggered while FULL too: the engine keeps them out of
		// later histories (their ids are on the channel's forgotten list).
		if (!stop) log.push(...replies);
	}

	/** Choosing FULL erases everything of the member: their messages and the personas' replies to their turns, from every scope. */
	private erase(userId: string): void {
		const erased = [...this.markers.values()].filter((meta) => carriesWordsOf(meta, userId));
		for (const meta of erased) meta.erased = true;
		const ids = new Set(erased.map((meta) => meta.messageId));
		for (const scope of this.scopes.values()) for (const id of ids) scope.messages.delete(id);
	}

	/** docs/design.md's capture, as far as where each message goes: one write per persona, to the user scope and (in a guild) the server scope. */
	private capture(member: Member, place: Place, history: TurnMessage[], responders: Persona[], replies: TurnMessage[]): void {
		// Messages of members who are FULL now, or were when they wrote them, are dropped from any history.
		// Replies erased with their member stay out too: the engine keeps them on their channel's forgotten list.
		const kept = history.filter(
			(message) =>
				(message.role === 'persona' || this.levels.get(message.authorId!) !== PrivacyLevel.FULL) &&
				!this.metaById.get(message.messageId!)!.hidden
		);
		for (const [index, persona] of responders.entries()) {
			const messages = [...kept, replies[index]!];
			const userKey = userScopeKey(member.id, place.channelId, persona.id);
			const serverKey = place.serverId === null ? null : serverScopeKey(place.serverId, place.channelId, persona.id);
			// In a guild, a member's own scope keeps their words and the replies to their turns (this turn's; earlier ones are there already).
			const own =
				serverKey === null
					? messages
					: messages.filter((message) =>
							message.role === 'persona'
								? this.metaById.get(message.messageId!)!.repliesTo === member.id
								: message.authorId === member.id
						);
			this.write(userKey, 'user', member.id, place, persona, own);
			if (serverKey) this.write(serverKey, 'server', null, place, persona, messages);
		}
	}

	private write(key: string, scope: 'user' | 'server', ownerId: string | null, place: Place, persona: Persona, messages: TurnMessage[]): void {
		let simulated = this.scopes.get(key);
		if (!simulated) {
			simulated = {
				key,
				scope,
				ownerId,
				serverId: place.serverId ?? 'DM',
				channelId: place.channelId,
				parentChannelId: place.parentChannelId,
				lineage: lineageOf(persona),
				messages: new Map()
			};
			this.scopes.set(key, simulated);
		}
		for (const message of messages) {
			const meta = this.metaById.get(message.messageId!)!;
			meta.keys.add(key);
			simulated.messages.set(message.messageId!, { ts: meta.ts, marker: meta.marker });
		}
	}

	private log(place: Place): TurnMessage[] {
		let log = this.logs.get(place.channelId);
		if (!log) this.logs.set(place.channelId, (log = []));
		return log;
	}
}
