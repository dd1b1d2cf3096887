/**
 * A small Discord for the forgetting property (test/engine/forgetting-properties.test.ts): members talk in
 * two servers (channels and threads) and DMs, personas answer and repeat what was said to them, and
 * messages are deleted and edited, members clear, erase, choose FULL or leave, the bot leaves a server.
 * Beside it, a model of what docs/guarantees.md#forgetting promises is gone, word by word.
 *
 * Every text holds unique marker words (`qx<n>zq`); a persona reply repeats the marker of the message it
 * answers, and sometimes of another message of the channel, as a persona does ("Maya, you said …"). A marker
 * must be gone only when every text holding it is gone: a reply that stays (an edit leaves the replies to the
 * old text; an erasure leaves the replies to other members' turns) may keep the words it repeated.
 */
import { PrivacyLevel, type ContextRequest, type MemoryEngine, type TurnMessage, type TurnResponse } from '../../src';
import type { TestClock } from './backends';
import { rawRows, sqliteFileBytes, type StoreLocation } from './store-inspection';

export const SERVERS = [
	{
		id: '1163485926733139968',
		channels: [
			{ id: '1163485927412613161', parent: null },
			{ id: '1163485927412613165', parent: null },
			{ id: '1163485927412613170', parent: '1163485927412613161' }
		]
	},
	{
		id: '1187329150225436772',
		channels: [
			{ id: '1187329150900318219', parent: null },
			{ id: '1187329150900318231', parent: '1187329150900318219' }
		]
	}
] as const;
export const MEMBERS = [
	{ id: '258334176382853120', name: 'Maya', dm: '1199236758364520458' },
	{ id: '301792264318746624', name: 'Zed', dm: '1199236758364520733' },
	{ id: '417209733560483841', name: 'Noa', dm: '1199236758364521019' }
] as const;
export const PERSONAS = [
	{ id: 'aria', name: 'Aria', lineage: 'muse' },
	{ id: 'nyx', name: 'Nyx', lineage: null }
] as const;

export interface WorldShape {
	members: number;
	personas: number;
	maxMessagesPerChannel: number;
	crudeMessageCount: number;
	/** Per member: opted in to cross-server memory. */
	optIn: boolean[];
}

export type Place = { server: number; channel: number } | { dm: true };

export type Step =
	| { kind: 'turn'; member: number; place: Place; history: number; responders: number[]; echo: number | null }
	| { kind: 'chat'; member: number; place: Place }
	| { kind: 'ask'; member: number; place: Place; persona: number; word: number }
	| { kind: 'delete'; picks: number[]; stale: boolean; namesMember: boolean }
	| { kind: 'edit'; pick: number; withText: boolean }
	| { kind: 'clear'; member: number }
	| { kind: 'clearAll'; member: number }
	| { kind: 'privacy'; member: number; level: PrivacyLevel }
	| { kind: 'leave'; member: number; server: number }
	| { kind: 'purge'; server: number }
	| { kind: 'saveTopic'; member: number }
	| { kind: 'forgetTopic'; member: number; pick: number }
	| { kind: 'tick'; minutes: number; sweep: boolean };

/** The steps that forget something. */
type Forgetting = Exclude<Step, { kind: 'turn' | 'chat' | 'ask' | 'tick' }>;

/** How far a text is gone, as promised: not at all, from every short-term copy (the archive keeps it), from every copy. */
export const Gone = { Kept: 0, FromShortTerm: 1, Everywhere: 2 } as const;
export type Gone = (typeof Gone)[keyof typeof Gone];

/** One text: a message's text before or after an edit, or a topic note. */
interface Text {
	words: string[];
	gone: Gone;
	/** Why it is gone, for the report. */
	why: string;
}

/** A message of the small Discord, as the test knows it. */
interface Posted {
	id: string;
	role: 'user' | 'persona';
	authorId: string;
	authorName: string;
	serverId: string | null;
	channelId: string;
	ts: number;
	/** Its texts, the current one last. */
	texts: Text[];
	/** How far any later text of it is gone: an erased message's new text is never stored either. */
	floor: Gone;
	/** A reply its turn stored: the member whose turn it answered, and their message. */
	answers?: { memberId: string; messageId: string };
}

const MARKER = /qx\d+zq/g;
const name = (gone: Gone) => ['kept', 'gone from short-term memory', 'gone'][gone];

export class SmallDiscord {
	/** What was found where it must not be: `<marker> (<why>) in <place>`. */
	public readonly leaks: string[] = [];
	private readonly posted: Posted[] = [];
	private readonly notes = new Map<string, (Text & { slug: string })[]>();
	private readonly logs = new Map<string, Posted[]>();
	private readonly levels = new Map<string, PrivacyLevel>();
	private readonly purged = new Set<string>();
	private markers = 0;
	private snowflake = 1_216_400_000_000_000_000n;

	public constructor(
		private readonly engine: MemoryEngine,
		private readonly clock: TestClock,
		private readonly world: WorldShape,
		private readonly store: StoreLocation
	) {}

	public async setUp(): Promise<void> {
		for (const [index, optIn] of this.world.optIn.slice(0, this.world.members).entries())
			if (optIn) await this.engine.setUserSettings(MEMBERS[index]!.id, { crossServerOptIn: true });
	}

	public async run(step: Step): Promise<void> {
		switch (step.kind) {
			case 'turn':
				return this.turn(step);
			case 'chat':
				if (this.where(step.member, step.place)) this.post(step.member, step.place);
				return;
			case 'ask':
				return this.ask(step);
			case 'tick':
				this.clock.advance(step.minutes * 60_000);
				if (step.sweep) await this.engine.sweep();
				return;
			default:
				// Forgetting happens a second after the last message, so "before" is never ambiguous.
				this.clock.advance(1_000);
				await this.forget(step);
				await this.check(step);
		}
	}

	// Talking -------------------------------------------------------------------------------------------

	private member(index: number) {
		return MEMBERS[index % this.world.members]!;
	}

	private persona(index: number) {
		return PERSONAS[index % this.world.personas]!;
	}

	/** The channel of a place, or null in a server the bot left. */
	private where(member: number, place: Place): { serverId: string | null; channelId: string; parentChannelId: string | null } | null {
		if ('dm' in place) return { serverId: null, channelId: this.member(member).dm, parentChannelId: null };
		const server = SERVERS[place.server % SERVERS.length]!;
		if (this.purged.has(server.id)) return null;
		const channel = server.channels[place.channel % server.channels.length]!;
		return { serverId: server.id, channelId: channel.id, parentChannelId: channel.parent };
	}

	private log(channelId: string): Posted[] {
		return this.logs.get(channelId) ?? this.logs.set(channelId, []).get(channelId)!;
	}

	private marker(): string {
		return `qx${this.markers++}zq`;
	}

	private isFull(memberId: string): boolean {
		return this.levels.get(memberId) === PrivacyLevel.FULL;
	}

	private post(memberIndex: number, place: Place): Posted {
		const member = this.member(memberIndex);
		const where = this.where(memberIndex, place)!;
		this.clock.advance(7_000);
		const marker = this.marker();
		const full = this.isFull(member.id);
		const message: Posted = {
			id: String(this.snowflake++),
			role: 'user',
			authorId: member.id,
			authorName: member.name,
			serverId: where.serverId,
			channelId: where.channelId,
			ts: this.clock.current,
			texts: [{ words: [marker], gone: full ? Gone.Everywhere : Gone.Kept, why: full ? `${member.name} wrote it while FULL` : '' }],
			floor: full ? Gone.Everywhere : Gone.Kept
		};
		this.posted.push(message);
		this.log(where.channelId).push(message);
		return message;
	}

	private async turn(step: Extract<Step, { kind: 'turn' }>): Promise<void> {
		const where = this.where(step.member, step.place);
		if (!where) return;
		const member = this.member(step.member);
		const asked = this.post(step.member, step.place);
		const log = this.log(where.channelId);
		const history = log.slice(-(step.history + 1)).map((message) => this.asHistory(message));
		const now = this.clock.current;
		const responders = [...new Set(step.responders.map((index) => this.persona(index)))];
		const echoed = step.echo === null ? null : log[step.echo % log.length]!;
		const replies: Posted[] = responders.map((persona, index) => {
			const words = [this.marker(), ...asked.texts.at(-1)!.words, ...(echoed ? echoed.texts.at(-1)!.words.slice(0, 1) : [])];
			return {
				id: String(this.snowflake++),
				role: 'persona',
				authorId: persona.id,
				authorName: persona.name,
				serverId: where.serverId,
				channelId: where.channelId,
				ts: now + 1 + index,
				texts: [{ words, gone: Gone.Kept, why: '' }],
				floor: Gone.Kept
			};
		});
		const responses: TurnResponse[] = replies.map((reply, index) => ({
			text: this.textOf(reply),
			personaId: responders[index]!.id,
			personaLineageId: responders[index]!.lineage,
			personaName: responders[index]!.name,
			messageId: reply.id
		}));
		const result = await this.engine.recordTurn({
			userId: member.id,
			userName: member.name,
			serverId: where.serverId,
			channelId: where.channelId,
			...(where.parentChannelId ? { parentChannelId: where.parentChannelId } : {}),
			history,
			responses
		});
		for (const reply of replies) {
			// A FULL member's turn is not stored, nor are the replies to it when a later history carries them.
			if (this.isFull(member.id)) this.drop(reply, Gone.Everywhere, `a reply to ${member.name}'s turn while FULL`);
			// Only a reply its turn stored names the turn it answered; otherwise it reaches memory as plain history.
			else if (result.written) reply.answers = { memberId: member.id, messageId: asked.id };
		}
		this.posted.push(...replies);
		log.push(...replies);
	}

	private textOf(message: Posted): string {
		const [own, ...repeated] = message.texts.at(-1)!.words;
		if (message.role === 'user') return `${own} ${message.texts.length > 1 ? 'I meant' : 'did you know'} pizza on Tuesday`;
		return `${own} Sure! You said ${repeated[0]}${repeated[1] ? `, and earlier ${repeated[1]}` : ''}.`;
	}

	private asHistory(message: Posted): TurnMessage {
		return {
			role: message.role,
			authorId: message.authorId,
			authorName: message.authorName,
			text: this.textOf(message),
			messageId: message.id,
			timestamp: message.ts
		};
	}

	private async ask(step: Extract<Step, { kind: 'ask' }>): Promise<void> {
		const where = this.where(step.member, step.place);
		if (!where) return;
		const words = [...this.wordsGone(Gone.Kept)];
		const query = words.length === 0 ? 'pizza' : `what about ${words[step.word % words.length]} pizza`;
		await this.contextOf(this.member(step.member).id, where, this.persona(step.persona), query, `ask of step ${JSON.stringify(step)}`);
	}

	// Forgetting ----------------------------------------------------------------------------------------

	private drop(message: Posted, gone: Gone, why: string): void {
		if (gone > message.floor) message.floor = gone;
		for (const text of message.texts) {
			if (gone <= text.gone) continue;
			text.gone = gone;
			text.why = why;
		}
	}

	private async forget(step: Forgetting): Promise<void> {
		const now = this.clock.current;
		const before = (message: Posted) => message.ts <= now;
		switch (step.kind) {
			case 'delete': {
				if (this.posted.length === 0) return;
				const first = this.posted[step.picks[0]! % this.posted.length]!;
				const candidates = this.posted.filter((message) => message.channelId === first.channelId);
				const deleted = [...new Set([first, ...step.picks.slice(1).map((pick) => candidates[pick % candidates.length]!)])];
				const dmOwner = MEMBERS.find((member) => member.dm === first.channelId);
				await this.engine.messagesChanged({
					serverId: first.serverId,
					channelId: first.channelId,
					...(dmOwner && step.namesMember ? { userId: dmOwner.id } : {}),
					messageIds: deleted.map((message) => message.id),
					kind: 'deleted'
				});
				for (const message of deleted) {
					this.drop(message, Gone.Everywhere, `deleted (${message.authorName}'s, step ${JSON.stringify(step)})`);
					for (const reply of this.posted)
						if (reply.answers?.messageId === message.id) this.drop(reply, Gone.Everywhere, `a reply to ${message.id}, deleted`);
				}
				// A host whose cache is stale still passes them in histories; others no longer see them.
				if (!step.stale) {
					const log = this.log(first.channelId);
					this.logs.set(
						first.channelId,
						log.filter((message) => !deleted.includes(message))
					);
				}
				return;
			}
			case 'edit': {
				const candidates = this.posted.filter((message) => message.role === 'user');
				if (candidates.length === 0) return;
				const message = candidates[step.pick % candidates.length]!;
				const old = message.texts.at(-1)!;
				message.texts.push({ words: [this.marker()], gone: message.floor, why: 'written by a member erased before' });
				await this.engine.messagesChanged({
					serverId: message.serverId,
					channelId: message.channelId,
					messageIds: [message.id],
					kind: 'edited',
					...(step.withText ? { texts: { [message.id]: this.textOf(message) } } : {})
				});
				if (old.gone < Gone.Everywhere)
					Object.assign(old, { gone: Gone.Everywhere, why: `edited ${step.withText ? 'with' : 'without'} its new text` });
				return;
			}
			case 'clear': {
				const member = this.member(step.member);
				await this.engine.clearShortTerm(member.id);
				for (const message of this.posted.filter(before)) {
					if (message.role === 'user' && message.authorId === member.id) this.drop(message, Gone.FromShortTerm, `${member.name} cleared`);
					else if (message.answers?.memberId === member.id || (message.role === 'persona' && message.channelId === member.dm))
						this.drop(message, Gone.Everywhere, `a reply to ${member.name}, who cleared`);
				}
				return;
			}
			case 'clearAll':
				await this.engine.clearAll(this.member(step.member).id);
				return this.erased(step.member, 'erased (clear scope:all)');
			case 'privacy': {
				const member = this.member(step.member);
				await this.engine.setUserSettings(member.id, { privacyLevel: step.level });
				this.levels.set(member.id, step.level);
				if (step.level === PrivacyLevel.FULL) return this.erased(step.member, 'erased (chose FULL)');
				// Leaving MINIMAL takes the profile and topics.
				if (step.level !== PrivacyLevel.MINIMAL) this.dropNotes(member.id, `${member.name} left MINIMAL`);
				return;
			}
			case 'leave': {
				const member = this.member(step.member);
				const server = SERVERS[step.server % SERVERS.length]!;
				// Null: memory held nothing of them, so nothing of theirs is stored anywhere.
				if ((await this.engine.memberLeft(server.id, member.id)) === null) return;
				for (const message of this.posted.filter(before)) {
					if (message.serverId !== server.id) continue;
					if (message.authorId === member.id || message.answers?.memberId === member.id)
						this.drop(message, Gone.Everywhere, `${member.name} left the server`);
				}
				return;
			}
			case 'purge': {
				const server = SERVERS[step.server % SERVERS.length]!;
				await this.engine.purgeServer(server.id);
				this.purged.add(server.id);
				for (const message of this.posted.filter(before))
					if (message.serverId === server.id) this.drop(message, Gone.Everywhere, 'the bot left the server');
				return;
			}
			case 'saveTopic': {
				const member = this.member(step.member);
				const marker = this.marker();
				const minimal = (this.levels.get(member.id) ?? PrivacyLevel.MINIMAL) === PrivacyLevel.MINIMAL;
				const saved = this.engine.saveTopic(member.id, `trip ${marker}`, `${marker} the ferry leaves at nine`);
				if (!minimal) {
					await saved.then(
						() => this.leaks.push(`a topic was saved for ${member.name}, who is not MINIMAL`),
						() => undefined
					);
					return;
				}
				const { slug } = await saved;
				this.notes.set(member.id, [...(this.notes.get(member.id) ?? []), { slug, words: [marker], gone: Gone.Kept, why: '' }]);
				return;
			}
			case 'forgetTopic': {
				const member = this.member(step.member);
				const kept = (this.notes.get(member.id) ?? []).filter((note) => note.gone === Gone.Kept);
				if (kept.length === 0) return;
				const note = kept[step.pick % kept.length]!;
				if (!(await this.engine.forgetTopic(member.id, note.slug))) this.leaks.push(`topic ${note.slug} of ${member.name} was not found`);
				Object.assign(note, { gone: Gone.Everywhere, why: 'a forgotten topic' });
			}
		}
	}

	/** `clear scope:all`, or FULL: their messages, the replies to their turns, every persona line of their DMs, their topics. */
	private erased(index: number, why: string): void {
		const member = this.member(index);
		for (const message of this.posted.filter((posted) => posted.ts <= this.clock.current)) {
			const theirs =
				(message.role === 'user' && message.authorId === member.id) ||
				message.answers?.memberId === member.id ||
				(message.role === 'persona' && message.channelId === member.dm);
			if (theirs) this.drop(message, Gone.Everywhere, `${member.name} ${why}`);
		}
		this.dropNotes(member.id, `${member.name} ${why}`);
	}

	private dropNotes(memberId: string, why: string): void {
		for (const note of this.notes.get(memberId) ?? []) if (note.gone < Gone.Everywhere) Object.assign(note, { gone: Gone.Everywhere, why });
	}

	// Checking ------------------------------------------------------------------------------------------

	/** Marker words every text holding them is gone from (at least `gone`), with why. */
	private wordsGone(gone: Gone): Map<string, string> {
		const least = new Map<string, Text>();
		const texts = [...this.posted.flatMap((message) => message.texts), ...[...this.notes.values()].flat()];
		for (const text of texts)
			for (const word of text.words) {
				const known = least.get(word);
				if (!known || text.gone < known.gone) least.set(word, text);
			}
		return new Map(
			[...least].flatMap(([word, text]) => (text.gone >= gone && text.gone > Gone.Kept ? [[word, `${name(text.gone)}: ${text.why}`]] : []))
		);
	}

	private found(text: string, gone: Map<string, string>, place: string): void {
		for (const [word] of text.matchAll(MARKER)) if (gone.has(word)) this.leaks.push(`${word} (${gone.get(word)}) in ${place}`);
	}

	private async contextOf(
		userId: string,
		where: { serverId: string | null; channelId: string; parentChannelId: string | null },
		persona: (typeof PERSONAS)[number],
		query: string,
		label: string
	): Promise<void> {
		const request: ContextRequest = {
			userId,
			...where,
			personaId: persona.id,
			personaLineageId: persona.lineage,
			query,
			tokenBudget: 4000
		};
		const context = await this.engine.buildContext(request);
		this.found(context.text, this.wordsGone(Gone.Everywhere), `the context of ${JSON.stringify(request)} (${label})`);
	}

	/** After a forgetting step: every context, every export, every row, and on SQLite the files' bytes. */
	private async check(step: Forgetting): Promise<void> {
		const gone = this.wordsGone(Gone.Everywhere);
		const fromShortTerm = this.wordsGone(Gone.FromShortTerm);
		if (fromShortTerm.size === 0) return;
		const after = `after step ${JSON.stringify(step)}`;
		const query = `what did we say ${[...gone.keys()].slice(-6).join(' ')}`;
		for (let member = 0; member < this.world.members; member++) {
			const { id } = this.member(member);
			const places: Place[] = [
				{ dm: true },
				...SERVERS.flatMap((server, at) => server.channels.map((_, channel) => ({ server: at, channel })))
			];
			for (const place of places) {
				const where = this.where(member, place);
				if (!where) continue;
				for (let persona = 0; persona < this.world.personas; persona++) await this.contextOf(id, where, this.persona(persona), query, after);
			}
			this.found(JSON.stringify(await this.engine.exportUser(id)), gone, `the export of ${this.member(member).name} ${after}`);
		}
		for (const row of await rawRows(this.store)) {
			const key = row.slice(0, row.indexOf(' '));
			// SQLite's rows name the namespace, a server's do not.
			const shortTerm = key.replace(`${this.store.namespace}:`, '').startsWith('shortterm:');
			this.found(row, shortTerm ? fromShortTerm : gone, `row ${key} ${after}`);
		}
		if (!this.store.storeUrl.startsWith('sqlite://')) return;
		// A deletion empties the write-ahead log at once and rewrites the database within a minute; an erasure rewrites it at once.
		const erasure = step.kind !== 'delete' && step.kind !== 'edit';
		for (const [file, bytes] of sqliteFileBytes(this.store.storeUrl, { database: erasure }))
			this.found(bytes.toString('latin1'), gone, `the bytes of ${file} ${after}`);
	}
}
