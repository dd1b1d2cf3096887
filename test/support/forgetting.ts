/**
 * The small Discord the forgetting property plays (test/engine/forgetting-properties.test.ts) against an engine: members
 * talk in two servers (channels and threads) and DMs, personas answer and repeat what was said to them ("Maya, you said
 * …"), and messages are deleted and edited, members clear, erase, choose FULL or leave, the bot leaves a server. After
 * each forgetting it looks for the words the model (forgetting-model.ts) says are gone: in every context, every export,
 * every row, and on SQLite the bytes of the files.
 */
import { type ContextRequest, type MemoryEngine, PrivacyLevel, type TurnMessage, type TurnResponse } from '../../src';
import { type Backend, openEngine, TestClock } from './backends';
import { filesSettled, logEmptied } from './engine';
import { ForgettingModel, Gone, type Posted, wordsFound } from './forgetting-model';
import { type Forgetting, MEMBERS, PERSONAS, type Place, PURGE_GRACE_HOURS, SERVERS, type Step, type WorldShape } from './forgetting-world';
import { rawRows, sqliteFileBytes, type StoreLocation } from './store-inspection';

/** Plays `steps` in a small Discord on a fresh engine of `backend`; `afterStep` gets what was found where it must not be so far. */
export async function playSteps(
	backend: Backend,
	world: WorldShape,
	steps: readonly Step[],
	afterStep: (step: Step, leaks: readonly string[]) => void
): Promise<void> {
	const clock = new TestClock();
	const opened = await openEngine(backend, {
		now: clock.now,
		config: {
			maxMessagesPerChannel: world.maxMessagesPerChannel,
			crudeMessageCount: world.crudeMessageCount,
			serverPurgeGraceHours: PURGE_GRACE_HOURS
		}
	});
	try {
		const discord = new SmallDiscord(opened.engine, clock, world, opened);
		await discord.setUp();
		for (const step of steps) {
			await discord.run(step);
			afterStep(step, discord.leaks);
		}
	} finally {
		await opened.dispose();
	}
}

export class SmallDiscord {
	/** What was found where it must not be: `<marker> (<why>) in <place>`. */
	public readonly leaks: string[] = [];
	private readonly model = new ForgettingModel();
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

	private post(memberIndex: number, place: Place, noIds = false): Posted {
		const member = this.member(memberIndex);
		const where = this.where(memberIndex, place)!;
		this.clock.advance(7_000);
		const marker = this.marker();
		const full = this.isFull(member.id);
		const message: Posted = {
			id: noIds ? undefined : String(this.snowflake++),
			role: 'user',
			authorId: member.id,
			authorName: member.name,
			serverId: where.serverId,
			channelId: where.channelId,
			ts: this.clock.current,
			texts: [{ words: [marker], gone: full ? Gone.Everywhere : Gone.Kept, why: full ? `${member.name} wrote it while FULL` : '' }],
			floor: full ? Gone.Everywhere : Gone.Kept
		};
		this.model.posted.push(message);
		this.log(where.channelId).push(message);
		return message;
	}

	private async turn(step: Extract<Step, { kind: 'turn' }>): Promise<void> {
		const where = this.where(step.member, step.place);
		if (!where) return;
		const member = this.member(step.member);
		const asked = this.post(step.member, step.place, step.noIds);
		const log = this.log(where.channelId);
		const history = log.slice(-(step.history + 1)).map((message) => this.asHistory(message));
		const now = this.clock.current;
		const responders = [...new Set(step.responders.map((index) => this.persona(index)))];
		const echoed = step.echo === null ? null : log[step.echo % log.length]!;
		const replies: Posted[] = responders.map((persona, index) => {
			const words = [this.marker(), ...asked.texts.at(-1)!.words, ...(echoed ? echoed.texts.at(-1)!.words.slice(0, 1) : [])];
			return {
				id: step.noIds ? undefined : String(this.snowflake++),
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
			...(reply.id ? { messageId: reply.id } : {})
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
			if (this.isFull(member.id)) this.model.drop(reply, Gone.Everywhere, `a reply to ${member.name}'s turn while FULL`);
			// Only a reply its turn stored names the turn it answered; otherwise it reaches memory as plain history.
			else if (result.written) reply.answers = { memberId: member.id, messageId: asked.id };
		}
		this.model.posted.push(...replies);
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
			...(message.id ? { messageId: message.id } : {}),
			timestamp: message.ts
		};
	}

	private async ask(step: Extract<Step, { kind: 'ask' }>): Promise<void> {
		const where = this.where(step.member, step.place);
		if (!where) return;
		// Asked for a word that should be gone, so the relevant tier would find it.
		const words = [...this.model.wordsGone(Gone.FromShortTerm).keys()];
		const query = words.length === 0 ? 'pizza' : `what about ${words[step.word % words.length]} pizza`;
		await this.contextOf(this.member(step.member).id, where, this.persona(step.persona), query, `ask of step ${JSON.stringify(step)}`);
	}

	// Forgetting ----------------------------------------------------------------------------------------

	private async forget(step: Forgetting): Promise<void> {
		const now = this.clock.current;
		switch (step.kind) {
			case 'delete':
				return this.delete(step);
			case 'forgetMessage':
				return this.forgetMessage(step);
			case 'edit': {
				// Discord names every message by id; one the host gave none for cannot be told apart.
				const candidates = this.model.posted.filter((message) => message.role === 'user' && message.id !== undefined);
				if (candidates.length === 0) return;
				const message = candidates[step.pick % candidates.length]!;
				this.model.edited(message, this.marker(), `edited ${step.withText ? 'with' : 'without'} its new text`);
				await this.engine.messagesChanged({
					serverId: message.serverId,
					channelId: message.channelId,
					messageIds: [message.id!],
					kind: 'edited',
					...(step.withText ? { texts: { [message.id!]: this.textOf(message) } } : {})
				});
				return;
			}
			case 'clear':
				await this.engine.clearShortTerm(this.member(step.member).id);
				return this.model.cleared(this.member(step.member), now);
			case 'clearAll':
				await this.engine.clearAll(this.member(step.member).id);
				return this.model.erased(this.member(step.member), now, 'erased (clear scope:all)');
			case 'privacy': {
				const member = this.member(step.member);
				await this.engine.setUserSettings(member.id, { privacyLevel: step.level });
				this.levels.set(member.id, step.level);
				if (step.level === PrivacyLevel.FULL) return this.model.erased(member, now, 'erased (chose FULL)');
				// Leaving MINIMAL takes the profile and topics.
				if (step.level !== PrivacyLevel.MINIMAL) this.model.dropNotes(member.id, `${member.name} left MINIMAL`);
				return;
			}
			case 'leave': {
				const member = this.member(step.member);
				const server = SERVERS[step.server % SERVERS.length]!;
				// Null: memory held nothing of them, so nothing of theirs is stored anywhere.
				if ((await this.engine.memberLeft(server.id, member.id)) !== null) this.model.left(member, server.id, now);
				return;
			}
			case 'purge': {
				const server = SERVERS[step.server % SERVERS.length]!;
				if (step.grace) {
					await this.engine.serverRemoved(server.id);
					this.clock.hours(PURGE_GRACE_HOURS);
					await this.engine.sweep();
				} else await this.engine.purgeServer(server.id);
				this.purged.add(server.id);
				return this.model.purged(server.id, now);
			}
			case 'saveTopic':
				return this.saveTopic(step.member);
			case 'forgetTopic': {
				const member = this.member(step.member);
				const kept = this.model.topics(member.id);
				if (kept.length === 0) return;
				const note = kept[step.pick % kept.length]!;
				if (!(await this.engine.forgetTopic(member.id, note.slug))) this.leaks.push(`topic ${note.slug} of ${member.name} was not found`);
				this.model.dropNotes(member.id, 'a forgotten topic', note);
			}
		}
	}

	private async delete(step: Extract<Step, { kind: 'delete' }>): Promise<void> {
		const named = this.model.posted.filter((message) => message.id !== undefined);
		if (named.length === 0) return;
		const first = named[step.picks[0]! % named.length]!;
		const candidates = named.filter((message) => message.channelId === first.channelId);
		const deleted = [...new Set([first, ...step.picks.slice(1).map((pick) => candidates[pick % candidates.length]!)])];
		const dmOwner = MEMBERS.find((member) => member.dm === first.channelId);
		await this.engine.messagesChanged({
			serverId: first.serverId,
			channelId: first.channelId,
			...(dmOwner && step.namesMember ? { userId: dmOwner.id } : {}),
			messageIds: deleted.map((message) => message.id!),
			kind: 'deleted'
		});
		this.model.deleted(deleted, `step ${JSON.stringify(step)}`);
		// A host whose cache is stale still passes them in histories; others no longer see them.
		if (!step.stale)
			this.logs.set(
				first.channelId,
				this.log(first.channelId).filter((message) => !deleted.includes(message))
			);
	}

	/**
	 * Forget this message, as the plugin asks it: Discord names a member's message's author, never a persona's. A member's
	 * own message is forgotten, a persona's reply to them too when memory holds it, anyone else's never unless by a
	 * moderator. The message stays on Discord, so the host's later histories still carry it: it must never be stored again.
	 */
	private async forgetMessage(step: Extract<Step, { kind: 'forgetMessage' }>): Promise<void> {
		const named = this.model.posted.filter((message) => message.id !== undefined);
		if (named.length === 0) return;
		const message = named[step.pick % named.length]!;
		const member = this.member(step.by);
		const result = await this.engine.forgetMessage({
			serverId: message.serverId,
			channelId: message.channelId,
			messageId: message.id!,
			userId: member.id,
			...(message.role === 'user' ? { authorId: message.authorId } : {}),
			moderator: step.moderator
		});
		const theirs = message.role === 'user' ? message.authorId === member.id : message.answers?.memberId === member.id;
		// A DM has no moderator.
		const moderator = step.moderator && message.serverId !== null;
		const expected =
			moderator || (theirs && message.role === 'user') ? ['forgotten'] : theirs ? ['forgotten', 'not-stored'] : ['not-yours', 'not-stored'];
		if (!expected.includes(result.outcome))
			this.leaks.push(
				`forgetMessage by ${member.name} of ${JSON.stringify(message.id)} answered ${result.outcome}, not ${expected.join(' or ')}`
			);
		if (result.outcome === 'forgotten') this.model.deleted([message], `step ${JSON.stringify(step)}`);
	}

	private async saveTopic(index: number): Promise<void> {
		const member = this.member(index);
		const marker = this.marker();
		const saved = this.engine.saveTopic(member.id, `trip ${marker}`, `${marker} the ferry leaves at nine`);
		if ((this.levels.get(member.id) ?? PrivacyLevel.MINIMAL) !== PrivacyLevel.MINIMAL) {
			await saved.then(
				() => this.leaks.push(`a topic was saved for ${member.name}, who is not MINIMAL`),
				() => undefined
			);
			return;
		}
		this.model.saved(member.id, (await saved).slug, marker);
	}

	// Checking ------------------------------------------------------------------------------------------

	private found(text: string, gone: ReadonlyMap<string, string>, place: string): void {
		this.leaks.push(...wordsFound(text, gone, place));
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
		const [gone, fromShortTerm] = [this.model.wordsGone(Gone.Everywhere), this.model.wordsGone(Gone.FromShortTerm)];
		// Only the relevant tier reads the archive, which keeps what a clear took from short-term memory.
		for (const block of context.blocks)
			this.found(
				block.text,
				block.tier === 'relevant' ? gone : fromShortTerm,
				`the ${block.tier} block of ${JSON.stringify(request)} (${label})`
			);
	}

	/** After a forgetting step: every context, every export, every row, and on SQLite the files' bytes. */
	private async check(step: Forgetting): Promise<void> {
		const gone = this.model.wordsGone(Gone.Everywhere);
		const fromShortTerm = this.model.wordsGone(Gone.FromShortTerm);
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
		// What did you remember? on every reply memory stored, asked by the member it answered: each line as memory holds it now.
		for (const reply of this.model.posted) {
			if (reply.role !== 'persona' || !reply.id || !reply.answers) continue;
			const viewer = { userId: reply.answers.memberId, serverId: reply.serverId, channelId: reply.channelId };
			const { lines } = await this.engine.contextSources(reply.id, viewer);
			this.found(lines.map((line) => line.text).join('\n'), gone, `what reply ${reply.id} drew on ${after}`);
		}
		for (const row of await rawRows(this.store)) {
			const key = row.slice(0, row.indexOf(' '));
			// SQLite's rows name the namespace, a server's do not.
			const shortTerm = key.replace(`${this.store.namespace}:`, '').startsWith('shortterm:');
			this.found(row, shortTerm ? fromShortTerm : gone, `row ${key} ${after}`);
		}
		if (!this.store.storeUrl.startsWith('sqlite://')) return;
		// A deletion empties the write-ahead log within a second, an erasure within its call; the file is rewritten within a minute.
		const erasure = step.kind !== 'delete' && step.kind !== 'edit';
		await (erasure ? filesSettled(this.engine) : logEmptied(this.engine));
		for (const [file, bytes] of sqliteFileBytes(this.store.storeUrl, { database: erasure }))
			this.found(bytes.toString('latin1'), gone, `the bytes of ${file} ${after}`);
	}
}
