/**
 * Archives written by a version before located archives (docs/storage.md, "Located archives") are read whole by every
 * deletion and erasure. `engine.sweep()` locates them: each marker comes to say where its message and the replies to it
 * are, each member gets the set of chunks holding their words, tombstones become tombstones (3). These tests make such an
 * archive (test/support/unlocate.ts turns what the current engine wrote into what an older one did, as an upgrade finds it),
 * then check that forgetting costs what it forgets after the sweep, and that it forgets everything it did before: the
 * persona's replies that repeat a member's words (in other chunks, far later), a reply the host gave no id (found by its
 * text's fingerprint), a message deleted or edited away before the upgrade, while turns, deletions and an erasure run during
 * the pass. Counted on a Map store, which sees every key the engine reads, and once on an SQLite file, bytes included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEngine, type MemoryTurn, type SweepResult, type TurnMessage } from '../../src';
import { Keys } from '../../src/engine/store/keys';
import { TestClock } from '../support/backends';
import { filesSettled } from '../support/engine';
import {
	checkStore,
	decodeRows,
	type DecodedStore,
	holdersOf,
	keysLeftAfterErasure,
	serverScopeKey,
	sqliteRows,
	userScopeKey
} from '../support/store-inspection';
import { CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, said, snowflake, THEO } from '../support/turns';
import { archiveHeads, locationProblems, mapStoreRows, unlocateMap, unlocateSqlite } from '../support/unlocate';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Members whose chatter fills the channel around the ones a test follows. */
const OTHERS = Array.from({ length: 24 }, (_, at) => ({ id: String(700_000_000_000_000_000n + BigInt(at)), name: `Member${at}` }));
/** Members who first speak while the pass runs, each in one turn. */
const NEWCOMERS = Array.from({ length: 40 }, (_, at) => ({ id: String(710_000_000_000_000_000n + BigInt(at)), name: `Newcomer${at}` }));
const SOL = { personaId: 'sol', personaName: 'Sol' } as const;
const GUILD_ARCHIVE = serverScopeKey(GUILD, CHANNEL, 'sol');
const OTHER_ARCHIVE = serverScopeKey(GUILD, OTHER_CHANNEL, 'sol');
const MAYA_DM_ARCHIVE = userScopeKey(MAYA.id, DM_CHANNEL, 'sol');
/** Chunks of an archive the sweep's expiry reads each time (expireArchive reads the oldest four at once). */
const EXPIRY_READS = 4;

interface Speaker {
	id: string;
	name: string;
}

/** A seeded random number generator (mulberry32): a failing seed runs again the same. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let value = state;
		value = Math.imul(value ^ (value >>> 15), value | 1);
		value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
		return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
	};
}

/**
 * A Map a Keyv wraps that counts the chunks the engine reads (each key read, in order) and, when `delay` is set, answers each
 * read after a few turns of the event loop, so that calls running at once interleave between their reads.
 */
class CountingStore extends Map<string, unknown> {
	public chunkReads: string[] = [];
	/** How many turns of the event loop a read of `key` waits; null: none. */
	public delay: ((key: string) => number) | null = null;

	/** What a read of `key` waits for besides (a test's moment); undefined: nothing. */
	public hold: ((key: string) => Promise<unknown> | undefined) | null = null;
	/** Told of each key the engine deletes. */
	public deleted: ((key: string) => void) | null = null;

	public override get(key: string): unknown {
		if (/:chunk:\d+$/.test(key)) this.chunkReads.push(key);
		const turns = this.delay?.(key) ?? 0;
		const held = this.hold?.(key);
		if (turns === 0 && !held) return super.get(key);
		return (async () => {
			for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
			await held;
			return super.get(key);
		})();
	}

	public override delete(key: string): boolean {
		this.deleted?.(key);
		return super.delete(key);
	}

	public reset(): void {
		this.chunkReads = [];
	}
}

/** One message a member said in a turn, and the text that goes with it in the reply (which repeats it). */
interface Said {
	who: Speaker;
	message: TurnMessage;
	id: string;
	/** Unique to this message: in its text and in every reply to it. */
	token: string;
	/** The reply's id: null when the host gave it none. */
	replyId: string | null;
	replyText: string;
	/** The chunk count of the archive when the turn was recorded (a later turn far enough lands in another chunk). */
	at: number;
}

/**
 * An engine on a counting Map store, reopened on the same Map as an upgraded bot would be; or, given `rows`, an engine a test
 * opens itself on another store, whose rows `rows` reads.
 */
class World {
	public readonly store = new CountingStore();
	public engine!: MemoryEngine;
	/** Messages the turns of {@link say} and {@link replyAgain} gave the archive (each new to it). */
	public appended = 0;
	private fill = 0;
	private tokens = 0;

	public constructor(
		public readonly clock = new TestClock(),
		private readonly rows: (() => Map<string, string>) | null = null
	) {}

	public async open(): Promise<void> {
		this.engine = await MemoryEngine.open({
			keyv: new Keyv({ store: this.store }),
			env: {},
			config: { sweepIntervalMinutes: 0 },
			now: this.clock.now
		});
	}

	/** Closes the engine, turns what it wrote into what a version before located archives wrote, and opens it again. */
	public async upgrade(options: { untag?: boolean } = {}) {
		await this.engine.close();
		const done = unlocateMap(this.store, options);
		await this.open();
		return done;
	}

	public decoded(): DecodedStore {
		return decodeRows(this.rows?.() ?? mapStoreRows(this.store));
	}

	/** Every row of the store that holds `text`, by key; the Map's own methods, not the counting ones. */
	public holders(text: string): string[] {
		return [...Map.prototype.entries.call(this.store)]
			.filter(([key, value]) => `${String(key)} ${String(value)}`.includes(text))
			.map(([key]) => String(key));
	}

	/** How many chunks an archive's head names (0 when there is none). */
	public chunks(scopeKey = GUILD_ARCHIVE): number {
		return archiveHeads(this.decoded()).get(scopeKey)?.chunks ?? 0;
	}

	public located(scopeKey = GUILD_ARCHIVE): boolean {
		return archiveHeads(this.decoded()).get(scopeKey)?.located === true;
	}

	public token(prefix: string): string {
		return `${prefix}${++this.tokens}Q`;
	}

	/** `count` messages of the other members, just before now. */
	public filler(count: number): TurnMessage[] {
		return Array.from({ length: count }, (_, offset) =>
			said(OTHERS[(this.fill + offset) % OTHERS.length]!, `chatter ${this.fill + offset} about the garden`, this.clock.current - 40 + offset)
		).map((message) => ((this.fill += 1), message));
	}

	/**
	 * A turn of `who` in a guild channel (or, with `dm`, their DM): `filler` messages of others first (in a DM, lines of
	 * theirs), whatever `carry` holds, then their message, and Sol's reply repeating it (with no id when `hostless`).
	 */
	public async say(
		who: Speaker,
		prefix: string,
		{ filler = 30, hostless = false, carry = [] as TurnMessage[], channelId = CHANNEL, dm = false } = {}
	): Promise<Said> {
		this.clock.advance(MINUTE);
		const token = this.token(prefix);
		const message = said(who, `${who.name} says ${token}`, this.clock.current - 5);
		const before = dm
			? Array.from({ length: filler }, (_, at) => said(who, `${who.name}-DMFILL-${this.token('')} line ${at}`, this.clock.current - 40 + at))
			: this.filler(filler);
		const replyId = hostless ? null : snowflake();
		const replyText = `Sol noted ${token}`;
		const at = this.chunks(dm ? userScopeKey(who.id, DM_CHANNEL, 'sol') : serverScopeKey(GUILD, channelId, 'sol'));
		await this.engine.recordTurn({
			userId: who.id,
			userName: who.name,
			serverId: dm ? null : GUILD,
			channelId: dm ? DM_CHANNEL : channelId,
			history: [...before, ...carry, message],
			responses: [{ text: replyText, ...SOL, ...(replyId ? { messageId: replyId } : {}) }]
		});
		this.appended += before.length + carry.length + 2;
		return { who, message, id: message.messageId!, token, replyId, replyText, at };
	}

	/** A later turn of the same member whose history carries `earlier` again, and Sol's reply to it, repeating its token. */
	public async replyAgain(earlier: Said, { channelId = CHANNEL, text = earlier.message.text, dm = false } = {}): Promise<string> {
		this.clock.advance(MINUTE);
		const replyId = snowflake();
		const turn: MemoryTurn = {
			userId: earlier.who.id,
			userName: earlier.who.name,
			serverId: dm ? null : GUILD,
			channelId: dm ? DM_CHANNEL : channelId,
			history: [{ ...earlier.message, text }],
			responses: [{ text: `Again, Sol recalls ${earlier.token}`, ...SOL, messageId: replyId }]
		};
		await this.engine.recordTurn(turn);
		this.appended += text === earlier.message.text ? 1 : 2;
		return replyId;
	}

	/** The history copy of a reply the host gave no id: a plain persona message another turn's history carries. */
	public plainCopy(reply: Said): TurnMessage {
		return { role: 'persona', authorId: 'sol', authorName: 'Sol', text: reply.replyText, timestamp: this.clock.current - 1_000 };
	}

	public delete(ids: readonly string[], channelId = CHANNEL) {
		return this.engine.messagesChanged({ serverId: GUILD, channelId, messageIds: [...ids], kind: 'deleted' });
	}

	/**
	 * The rows naming `userId` that an erasure must not leave: its registries, settings and user directory may stay, and (with
	 * `ownArchives`) what is left of their own DM archives once emptied (head, empty chunks, tombstones, listings), whose keys
	 * name them.
	 */
	public rowsNaming(userId: string, { ownArchives = false } = {}): string[] {
		const allowed = keysLeftAfterErasure(userId, 'keyv');
		const ownArchive = new RegExp(
			`^keyv:(archive:shortterm:user:${userId}:[^:]+(:[^:]+)?:(head|tombstones|chunk:\\d+)|registry:archives:server:DM|archives:DM:\\d+)$`
		);
		return this.holders(userId).filter((key) => !allowed.test(key) && !(ownArchives && ownArchive.test(key)));
	}

	public static async create(): Promise<World> {
		const world = new World();
		await world.open();
		return world;
	}
}

/**
 * A busy guild channel: `turns` turns of `filler + 2` messages (a chunk holds 64), Maya's every tenth, Nova's every tenth
 * (offset by five), Theo's otherwise. Maya's turn 12 has a reply the host gave no id, whose plain copy a turn four later
 * carries (two chunks on); her first message from the tenth chunk on (`late`) gets a second reply at the end.
 */
async function busyChannel(world: World, turns: number, channelId = CHANNEL, filler = 30) {
	const maya: Said[] = [];
	const nova: Said[] = [];
	const theo: Said[] = [];
	let hostless: Said | null = null;
	for (let at = 0; at < turns; at++) {
		const carry = hostless && at === 16 ? [world.plainCopy(hostless)] : [];
		if (at % 10 === 2) {
			const mine = await world.say(MAYA, 'MAYAW', { hostless: at === 12, channelId, carry, filler });
			if (at === 12) hostless = mine;
			maya.push(mine);
		} else if (at % 10 === 7) nova.push(await world.say(NOVA, 'NOVAW', { channelId, carry, filler }));
		else theo.push(await world.say(THEO, 'THEOW', { channelId, carry, filler }));
	}
	const late = maya.find((said) => said.at >= 10)!;
	await world.replyAgain(late, { channelId });
	return { maya, nova, theo, hostless: hostless!, late };
}

/** A store's problems as checkStore finds them, but the markers of replies' fingerprints (`~…`), which name no message of their own. */
function storeProblems(store: DecodedStore): string[] {
	return checkStore(store).filter((problem) => !problem.includes('marker of ~'));
}

const opened: World[] = [];
async function world(): Promise<World> {
	const created = await World.create();
	opened.push(created);
	return created;
}
afterEach(async () => {
	for (const each of opened.splice(0)) await each.engine.close().catch(() => undefined);
});

describe('GIVEN a busy channel (some 45 chunks) archived by a version before located archives', () => {
	it('WHEN the transform of the test runs THEN the archive is as that version wrote it, and a deletion reads it whole', async () => {
		const under = await world();
		const talk = await busyChannel(under, 90);
		// What the current engine writes: located, so the oracle must hold before the transform.
		expect(under.located()).toBe(true);
		expect(locationProblems(under.decoded())).toEqual([]);
		expect(storeProblems(under.decoded())).toEqual([]);
		const done = await under.upgrade();
		expect(done.heads).toBe(1);
		expect(done.markers).toBeGreaterThan(2_500);
		expect(done.fingerprints).toBeGreaterThanOrEqual(1);
		expect(done.chunkSets).toBeGreaterThanOrEqual(3);
		expect(under.located()).toBe(false);
		expect(under.holders(`:by:`)).toEqual([]);
		expect(storeProblems(under.decoded())).toEqual([]);

		under.store.reset();
		const result = await under.delete([talk.maya[0]!.id]);
		expect(result.archivedMessagesRemoved).toBe(2);
		expect(under.store.chunkReads.length).toBeGreaterThanOrEqual(under.chunks());
	});

	it('WHEN the sweep locates it THEN a deletion reads its chunks alone (≤ 2), and the message and every reply to it are gone', async () => {
		const under = await world();
		const talk = await busyChannel(under, 90);
		await under.upgrade();
		const swept: SweepResult = await under.engine.sweep();
		expect(swept.archivesLocated).toBe(1);
		expect(under.located()).toBe(true);
		expect(locationProblems(under.decoded())).toEqual([]);

		// Its first reply in its own chunk, the second some 34 chunks on: both read, nothing else.
		under.store.reset();
		const result = await under.delete([talk.late.id]);
		expect(result.archivedMessagesRemoved).toBe(3);
		expect(under.store.chunkReads.length, under.store.chunkReads.join(', ')).toBeLessThanOrEqual(2);
		expect(under.holders(talk.late.token)).toEqual([]);

		for (const said of [talk.theo[7]!, talk.nova[3]!]) {
			under.store.reset();
			await under.delete([said.id]);
			expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
			expect(under.holders(said.token)).toEqual([]);
		}
		// The reply the host gave no id goes with the message it answered, and so does its plain copy a later turn carried
		// two chunks on (found by its text's fingerprint marker): three chunks at most.
		under.store.reset();
		await under.delete([talk.hostless.id]);
		expect(under.store.chunkReads.length, under.store.chunkReads.join(', ')).toBeLessThanOrEqual(3);
		expect(under.holders(talk.hostless.message.text)).toEqual([]);
		expect(under.holders(talk.hostless.replyText)).toEqual([]);
		expect(under.holders(talk.theo[40]!.token)).not.toEqual([]);
		expect(storeProblems(under.decoded())).toEqual([]);
	});

	it('WHEN the sweep locates it and Maya erases everything THEN only the chunks of her words are read, and none of them is left', async () => {
		const under = await world();
		const talk = await busyChannel(under, 90);
		await under.upgrade();
		expect((await under.engine.sweep()).archivesLocated).toBe(1);

		under.store.reset();
		const result = await under.engine.clearAll(MAYA.id);
		// Her nine messages, Sol's nine replies and the second reply to one of them (the plain copy of the reply without an id goes
		// after, as a deletion of its text, and is not counted here).
		expect(result.archivedMessagesRemoved).toBe(2 * talk.maya.length + 1);
		// Each turn's message and reply in one chunk (a pair may straddle two); the second reply's chunk; the plain copy's.
		expect(under.store.chunkReads.length, `${under.chunks()} chunks`).toBeLessThanOrEqual(2 * (talk.maya.length + 2));
		expect(under.holders('MAYAW')).toEqual([]);
		// The reply without an id repeats her words, and a later history carried it as a plain persona message: found by its text.
		expect(under.holders(talk.hostless.replyText)).toEqual([]);
		expect(under.rowsNaming(MAYA.id)).toEqual([]);
		expect(under.holders(`:by:${MAYA.id}`)).toEqual([]);
		for (const said of [...talk.theo, ...talk.nova]) expect(under.holders(said.token), said.token).not.toEqual([]);
		expect(storeProblems(under.decoded())).toEqual([]);
	});

	it('WHEN its markers are untagged too (older still) THEN the sweep locates it all the same, and forgetting reads ≤ 2 chunks', async () => {
		const under = await world();
		const talk = await busyChannel(under, 70);
		const done = await under.upgrade({ untag: true });
		expect(done.untagged).toBeGreaterThan(2_000);
		expect((await under.engine.sweep()).archivesLocated).toBe(1);
		expect(locationProblems(under.decoded())).toEqual([]);
		under.store.reset();
		await under.delete([talk.late.id]);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(talk.late.token)).toEqual([]);
		// A turn carrying archived messages again archives none of them twice.
		const head = archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!;
		await under.replyAgain(talk.theo[3]!);
		expect(archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count).toBe(head.count + 1);
		expect(storeProblems(under.decoded())).toEqual([]);
	});

	it('WHEN a second sweep runs THEN it locates nothing more, and reads no chunk but the few its expiry always reads', async () => {
		const under = await world();
		await busyChannel(under, 90);
		await under.say(MAYA, 'MAYADM', { dm: true });
		await under.say(THEO, 'THEODM', { dm: true });
		await under.upgrade();
		under.store.reset();
		expect((await under.engine.sweep()).archivesLocated).toBe(3);
		expect(new Set(under.store.chunkReads).size).toBeGreaterThanOrEqual(under.chunks());

		under.store.reset();
		expect((await under.engine.sweep()).archivesLocated).toBe(0);
		const beyondExpiry = under.store.chunkReads.filter((key) => Number(key.slice(key.lastIndexOf(':') + 1)) >= EXPIRY_READS);
		expect(beyondExpiry).toEqual([]);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(3 * EXPIRY_READS);
	});

	it('WHEN the archive was written located from its start THEN the sweep locates nothing, and reads no more than its expiry does', async () => {
		const under = await world();
		await busyChannel(under, 60);
		under.store.reset();
		expect((await under.engine.sweep()).archivesLocated).toBe(0);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(EXPIRY_READS);
	});
});

describe('GIVEN an archive before located archives whose oldest chunks are past retention', () => {
	it('WHEN the sweep deletes them and locates the rest THEN its markers and sets name the chunks it keeps, and forgetting is cheap', async () => {
		const under = await world();
		const old: Said[] = [];
		for (let at = 0; at < 20; at++) old.push(await under.say(at % 5 === 0 ? MAYA : THEO, at % 5 === 0 ? 'OLDMAYAW' : 'OLDTHEOW'));
		under.clock.advance(20 * DAY);
		const talk = await busyChannel(under, 60);
		await under.upgrade();
		// The first 20 turns (10 chunks) are 35 days old, past the 30 days of retention; the rest 15 days.
		under.clock.advance(15 * DAY);
		const swept = await under.engine.sweep();
		expect(swept.chunksDeleted).toBeGreaterThanOrEqual(9);
		expect(swept.archivesLocated).toBe(1);
		const head = archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!;
		expect(head.first).toBeGreaterThanOrEqual(9);
		expect(head.located).toBe(true);
		expect(locationProblems(under.decoded())).toEqual([]);
		expect(under.holders('OLDMAYAW')).toEqual([]);

		under.store.reset();
		await under.delete([talk.late.id]);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(talk.late.token)).toEqual([]);
		under.store.reset();
		await under.engine.clearAll(MAYA.id);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2 * (talk.maya.length + 2));
		expect(under.holders('MAYAW')).toEqual([]);
		expect(under.holders(`:by:${MAYA.id}`)).toEqual([]);
		expect(storeProblems(under.decoded())).toEqual([]);
	});
});

describe('GIVEN messages forgotten before the upgrade', () => {
	it('WHEN a message deleted before is deleted again after the sweep THEN no chunk is read, and no later history archives it again', async () => {
		const under = await world();
		const talk = await busyChannel(under, 60);
		const gone = talk.nova[2]!;
		await under.delete([gone.id]);
		expect(under.holders(gone.token)).toEqual([]);
		const done = await under.upgrade();
		expect(done.tombstones).toBeGreaterThanOrEqual(2);
		expect((await under.engine.sweep()).archivesLocated).toBe(1);
		expect(locationProblems(under.decoded())).toEqual([]);

		under.store.reset();
		const again = await under.delete([gone.id]);
		expect(again.archivedMessagesRemoved).toBe(0);
		expect(under.store.chunkReads).toEqual([]);

		// The record of its deletion on Discord would keep it out as well: it goes, so that the marker alone is what keeps it out.
		for (const id of [gone.id, gone.replyId!]) Map.prototype.delete.call(under.store, `keyv:${Keys.forgottenMessage(GUILD, CHANNEL, id)}`);
		expect(under.holders(gone.id).filter((key) => !key.includes(':seen:') && !/:(tombstones|forgotten-ids)/.test(key))).toEqual([]);
		const head = archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!;
		await under.engine.recordTurn({
			userId: NOVA.id,
			userName: NOVA.name,
			serverId: GUILD,
			channelId: CHANNEL,
			history: [gone.message, said(NOVA, 'nova is back', under.clock.current)],
			responses: [{ text: 'welcome back', ...SOL, messageId: snowflake() }]
		});
		const archived = await under.engine.exportUser(NOVA.id);
		expect(JSON.stringify(archived.archive)).not.toContain(gone.token);
		expect(archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count).toBe(head.count + 2);
		expect(under.holders(gone.token).filter((key) => key.includes(':archive:'))).toEqual([]);
	});

	it('WHEN a message edited away before (its replies kept) is deleted after the sweep THEN both replies go, from ≤ 2 chunks', async () => {
		const under = await world();
		const talk = await busyChannel(under, 60);
		// Not maya[1], whose reply has no id (a plain copy of it that a later history carried is no reply to anything), nor
		// maya[2], which has a second reply already.
		const edited = talk.maya[3]!;
		await under.replyAgain(edited);
		// An edit that leaves no text takes the message out; the replies to it stay until it is deleted.
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [edited.id], kind: 'edited' });
		expect(under.holders(`Sol noted ${edited.token}`)).not.toEqual([]);
		const done = await under.upgrade();
		expect(done.editedAway).toBe(1);
		expect((await under.engine.sweep()).archivesLocated).toBe(1);
		expect(locationProblems(under.decoded())).toEqual([]);

		under.store.reset();
		const result = await under.delete([edited.id]);
		expect(result.archivedMessagesRemoved).toBe(2);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(edited.token)).toEqual([]);
	});

	it('WHEN a message edited away before came back with new text far later and is deleted after the sweep THEN it and both replies go', async () => {
		const under = await world();
		const talk = await busyChannel(under, 70);
		const edited = talk.maya[0]!;
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [edited.id], kind: 'edited' });
		// Its new text comes with a later turn's history: archived again, some 34 chunks after its first reply; its id stays in
		// the archive's tombstones (as an older version left it, marker 1), though it is archived.
		await under.replyAgain(edited, { text: `Maya says, edited, ${edited.token} EDITEDTEXT` });
		expect(under.holders('EDITEDTEXT')).not.toEqual([]);
		await under.upgrade();
		expect((await under.engine.sweep()).archivesLocated).toBe(1);
		const problems = locationProblems(under.decoded());

		under.store.reset();
		const result = await under.delete([edited.id]);
		expect(under.holders(edited.token)).toEqual([]);
		expect(result.archivedMessagesRemoved).toBe(3);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(problems).toEqual([]);
	});

	it('WHEN a message is edited away during the pass and a later turn brings its new text THEN deleting it takes its first reply', async () => {
		const under = await world();
		const talk = await busyChannel(under, 90);
		// Theo's message of turn 62 or so, in chunk 30, its reply beside it: the pass reaches that chunk after the edit.
		const edited = talk.theo.find((said) => said.at >= 30)!;
		await under.upgrade();
		// The pass's first read of chunk 20 (the sweep's expiry reads the first four, nothing else runs) is held back while the
		// edit reaches the archive's lock, behind the pass's slice.
		let edit: Promise<unknown> | null = null;
		under.store.hold = (key) => {
			if (key !== `keyv:${Keys.archiveChunk(GUILD_ARCHIVE, 20)}` || edit) return undefined;
			edit = under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [edited.id], kind: 'edited' });
			return new Promise((resolve) => setTimeout(resolve, 500));
		};
		const swept = await under.engine.sweep();
		expect(edit).not.toBeNull();
		await edit;
		under.store.hold = null;
		expect(under.holders(`${THEO.name} says ${edited.token}`)).toEqual([]);
		expect(under.holders(edited.replyText)).not.toEqual([]);
		const problems = locationProblems(under.decoded());

		// Its new text comes with a later turn's history, archived again in the last chunk; then it is deleted on Discord.
		await under.replyAgain(edited, { text: `Theo says, edited, ${edited.token} EDITEDTEXT` });
		await under.delete([edited.id]);
		// Sol's first reply repeats its words, in chunk 30.
		expect(under.holders(edited.token)).toEqual([]);
		expect(swept.archivesLocated).toBe(1);
		expect(problems).toEqual([]);
	});
});

describe('GIVEN a channel of 112 chunks archived before located archives, WHEN sweep() runs while turns, deletions and an erasure run', () => {
	it.each([1, 2, 3, 4])(
		'seed %i: THEN all they forgot is gone, the archive ends located and true, and later forgetting is cheap and whole',
		async (seed) => {
			const under = await world();
			// 148 turns of 48 messages, a plain copy and a reply: 111 chunks and one holding two messages; the pass spans 7 slices.
			const talk = await busyChannel(under, 148, CHANNEL, 46);
			const oldLate = talk.theo[5]!;
			await under.upgrade();
			expect(under.located()).toBe(false);

			const countBefore = archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count;
			under.appended = 0;
			const rng = random(seed);
			// Chunk reads are slow, other reads quick: the pass spans many turns of the others.
			under.store.delay = (key) => (/:chunk:\d+$/.test(key) ? 4 + Math.floor(rng() * 24) : Math.floor(rng() * 3));
			const yields = async (count: number) => {
				for (let at = 0; at < count; at++) await new Promise((resolve) => setImmediate(resolve));
			};
			let sweeping = true;
			const duringPass = { turns: 0, deletions: 0 };
			const deleted: Said[] = [];
			/** What the turns during the pass said: Nova's messages, a reply without an id, a message with a later second reply. */
			const said: { nova: Said[]; novaHostless?: Said; during?: Said; lateToOld?: string } = { nova: [] };

			const sweep = under.engine.sweep().finally(() => (sweeping = false));
			const turns = (async () => {
				for (let at = 0; at < 40; at++) {
					// Small turns first (a message and its reply), each of a member who never spoke there (or of Nova): the tail chunk the
					// pass began with (all but empty) takes them while the pass runs, and only the pass can add it to their chunk sets.
					// Then turns of half a chunk.
					const small = at < 20;
					const filler = small ? 0 : 30;
					// A second reply to a message archived before the upgrade.
					if (at === 3) said.lateToOld = await under.replyAgain(oldLate);
					const carry = said.novaHostless && at === 26 ? [under.plainCopy(said.novaHostless)] : [];
					if (at % 4 === 1 || (!small && at % 2 === 0)) {
						const mine = await under.say(NOVA, 'NOVAW', { filler, hostless: at === 21, carry });
						said.nova.push(mine);
						if (at === 21) said.novaHostless = mine;
					} else {
						const theirs = await under.say(small ? NEWCOMERS[at]! : THEO, 'THEOW', { filler, carry });
						if (at === 23) said.during = theirs;
					}
					// A second reply to a message archived during the pass, a chunk or two on.
					if (at === 29) await under.replyAgain(said.during!);
					if (sweeping) duringPass.turns++;
				}
			})();
			const deletions = (async () => {
				const candidates = [...talk.theo.slice(0, 40), ...talk.nova].filter((each) => each !== oldLate);
				for (let at = 0; at < 8; at++) {
					await yields(Math.floor(rng() * 40));
					const chosen = candidates.splice(Math.floor(rng() * candidates.length), 1)[0]!;
					deleted.push(chosen);
					await under.delete([chosen.id]);
					if (sweeping) duringPass.deletions++;
				}
			})();
			const erasure = (async () => {
				await yields(Math.floor(rng() * 60));
				await under.engine.clearAll(MAYA.id);
			})();
			const [swept] = await Promise.all([sweep, turns, deletions, erasure]);
			under.store.delay = null;
			// Else the test tests nothing: the pass ran while others wrote.
			expect(duringPass.turns, JSON.stringify(duringPass)).toBeGreaterThanOrEqual(2);
			expect(duringPass.turns + duringPass.deletions).toBeGreaterThanOrEqual(4);

			// What they forgot is gone, whatever became of the pass.
			for (const said of deleted) expect(under.holders(said.token), `deleted ${said.id}`).toEqual([]);
			expect(under.holders('MAYAW')).toEqual([]);
			expect(under.rowsNaming(MAYA.id)).toEqual([]);
			expect(under.holders(`:by:${MAYA.id}`)).toEqual([]);
			// A channel that is never quiet is the one that most needs locating: the sweep locates it while the others write.
			expect.soft(swept.archivesLocated, 'archives located by the sweep that ran amid the traffic').toBe(1);
			// Else a quiet sweep must, from what the interrupted one left.
			if (!under.located()) expect((await under.engine.sweep()).archivesLocated).toBe(1);
			expect(under.located()).toBe(true);
			// The head names every message appended meanwhile: the pass's last write of it was no older copy.
			expect(archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count).toBe(countBefore + under.appended);
			expect(locationProblems(under.decoded())).toEqual([]);
			expect(storeProblems(under.decoded())).toEqual([]);

			// A message archived during the pass, its second reply in a later chunk: both found by its marker.
			under.store.reset();
			await under.delete([said.during!.id]);
			expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
			expect(under.holders(said.during!.token)).toEqual([]);
			// A message archived before the upgrade, its second reply appended during the pass.
			under.store.reset();
			await under.delete([oldLate.id]);
			expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
			expect(under.holders(oldLate.token)).toEqual([]);
			expect(said.lateToOld).toBeDefined();

			// Nova spoke before the upgrade and during the pass (into the tail chunk the pass began with, too): her erasure reads her chunks.
			const novaTurns = talk.nova.filter((each) => !deleted.includes(each)).length + said.nova.length;
			under.store.reset();
			await under.engine.clearAll(NOVA.id);
			expect(under.store.chunkReads.length).toBeLessThanOrEqual(2 * (novaTurns + 2));
			expect(under.holders('NOVAW')).toEqual([]);
			expect(under.holders(said.novaHostless!.replyText)).toEqual([]);
			expect(under.rowsNaming(NOVA.id)).toEqual([]);
			expect(under.holders(talk.theo[60]!.token)).not.toEqual([]);
			expect(locationProblems(under.decoded())).toEqual([]);
			expect(storeProblems(under.decoded())).toEqual([]);
		}
	);
});

describe('GIVEN a busy channel archived before located archives, whose bot records one turn after another', () => {
	it('WHEN the sweep runs while the turns keep coming THEN it locates the archive, and each turn lands whole', async () => {
		const under = await world();
		await busyChannel(under, 70);
		await under.upgrade();
		const countBefore = archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count;
		under.appended = 0;
		let sweeping = true;
		let turns = 0;
		// Every read answers on a later turn of the event loop, as a store's does.
		under.store.delay = () => 1;
		const sweep = under.engine.sweep().finally(() => (sweeping = false));
		// A bot answering one message after another: the next turn starts as the last one lands, for as long as the sweep runs.
		while (sweeping && turns < 500) {
			await under.say(turns % 2 ? THEO : NOVA, 'STREAMW', { filler: 2 });
			turns++;
		}
		const swept = await sweep;
		under.store.delay = null;
		expect(turns).toBeGreaterThanOrEqual(3);
		expect(turns).toBeLessThan(500);
		expect(archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count).toBe(countBefore + under.appended);
		expect(swept.archivesLocated, `${turns} turns landed during the sweep`).toBe(1);
		expect(locationProblems(under.decoded())).toEqual([]);
	});
});

describe('GIVEN a channel of 40 chunks archived before located archives, its last all but empty', () => {
	it('WHEN an erasure lands amid the pass, and a turn and deletions once it has read the last chunk THEN it misses none of them', async () => {
		const under = await world();
		// 52 turns of 48 messages, a plain copy and a reply: 39 full chunks and a 40th holding two messages.
		const talk = await busyChannel(under, 52, CHANNEL, 46);
		expect(under.chunks()).toBe(40);
		await under.upgrade();
		const countBefore = archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count;
		under.appended = 0;

		// Two moments of the pass, each held back long enough for what starts then to reach the archive's lock behind the pass's
		// slice (on a host's Keyv some calls wait for the reads back of shared keys, 50 ms), so that it lands before whatever
		// the pass does next. The first read of chunk 20 is the pass's (the sweep's expiry reads the first four, nothing else
		// runs): Maya's erasure starts then. The first read of the last chunk once her erasure has left the archive (it deletes
		// her chunk set last, under the archive's lock; it read the chunk before, whole) is the pass's too: a turn of a
		// newcomer (into that chunk) and two deletions start then.
		const middleKey = `keyv:${Keys.archiveChunk(GUILD_ARCHIVE, 20)}`;
		const tailKey = `keyv:${Keys.archiveChunk(GUILD_ARCHIVE, 39)}`;
		const early = talk.theo[2]!;
		const late = talk.theo.at(-1)!;
		let erasure: Promise<unknown> | null = null;
		let erased = false;
		under.store.deleted = (key) => {
			if (erasure && key === `keyv:${Keys.archiveAuthorChunks(GUILD_ARCHIVE, MAYA.id)}`) erased = true;
		};
		let landed: Promise<unknown> | null = null;
		let newcomer: Said | null = null;
		const moment = () => new Promise((resolve) => setTimeout(resolve, 500));
		under.store.hold = (key) => {
			if (key === middleKey && !erasure) {
				erasure = under.engine.clearAll(MAYA.id);
				return moment();
			}
			if (key !== tailKey || !erased || landed) return undefined;
			landed = Promise.all([
				under.say(NEWCOMERS[0]!, 'NEWW', { filler: 0 }).then((said) => (newcomer = said)),
				under.delete([early.id]),
				under.delete([late.id])
			]);
			return moment();
		};
		const swept = await under.engine.sweep();
		expect(erasure).not.toBeNull();
		expect(landed).not.toBeNull();
		await Promise.all([erasure, landed]);
		under.store.hold = null;

		expect(swept.archivesLocated).toBe(1);
		expect(under.located()).toBe(true);
		expect(archiveHeads(under.decoded()).get(GUILD_ARCHIVE)!.count).toBe(countBefore + under.appended);
		expect(locationProblems(under.decoded())).toEqual([]);
		expect(storeProblems(under.decoded())).toEqual([]);
		expect(under.holders(early.token)).toEqual([]);
		expect(under.holders(late.token)).toEqual([]);
		expect(under.holders('MAYAW')).toEqual([]);
		expect(under.holders(`:by:${MAYA.id}`)).toEqual([]);
		expect(under.rowsNaming(MAYA.id)).toEqual([]);

		// The newcomer's words are in that last chunk: her erasure finds them there.
		under.store.reset();
		await under.engine.clearAll(NEWCOMERS[0]!.id);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(newcomer!.token)).toEqual([]);
		under.store.reset();
		await under.delete([talk.nova[1]!.id]);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(talk.nova[1]!.token)).toEqual([]);
	});
});

describe('GIVEN two channels archived before located archives, one with a damaged chunk', () => {
	it('WHEN the sweep runs THEN it does not throw, leaves that archive unlocated (forgetting still whole), and locates the other', async () => {
		const under = await world();
		const damagedTalk = await busyChannel(under, 60);
		const otherTalk = await busyChannel(under, 40, OTHER_CHANNEL);
		await under.upgrade();
		// A row that is no envelope: the chunk cannot be read (the store counts it as damaged), and may hold anyone's words.
		const damagedKey = `keyv:${Keys.archiveChunk(GUILD_ARCHIVE, 20)}`;
		const lost = (under.decoded().values.get(Keys.archiveChunk(GUILD_ARCHIVE, 20)) as { id: string }[]).map(({ id }) => id);
		Map.prototype.set.call(under.store, damagedKey, '{"value":"GARBAGE-ROW"}');

		const swept = await under.engine.sweep();
		expect(swept.archivesLocated).toBe(1);
		expect(under.located(GUILD_ARCHIVE)).toBe(false);
		expect(under.located(OTHER_ARCHIVE)).toBe(true);
		expect(locationProblems(under.decoded())).toEqual([]);

		// The damaged archive is read whole, as before, and forgets all the same.
		under.store.reset();
		await under.delete([damagedTalk.late.id]);
		expect(under.store.chunkReads.length).toBeGreaterThanOrEqual(under.chunks(GUILD_ARCHIVE) - 1);
		expect(under.holders(damagedTalk.late.token)).toEqual([]);
		under.store.reset();
		await under.delete([otherTalk.late.id], OTHER_CHANNEL);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(otherTalk.late.token)).toEqual([]);

		// An erasure writes over the chunk it cannot read; the next sweep locates what is left.
		await under.engine.clearAll(NOVA.id);
		expect(under.holders('NOVAW')).toEqual([]);
		expect(under.holders('GARBAGE-ROW')).toEqual([]);
		expect((await under.engine.sweep()).archivesLocated).toBe(1);
		expect(under.located(GUILD_ARCHIVE)).toBe(true);
		expect(locationProblems(under.decoded())).toEqual([]);
		under.store.reset();
		await under.delete([damagedTalk.maya[2]!.id]);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(damagedTalk.maya[2]!.token)).toEqual([]);
		under.store.reset();
		await under.engine.clearAll(MAYA.id);
		expect(under.holders('MAYAW')).toEqual([]);
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2 * (damagedTalk.maya.length + otherTalk.maya.length + 4));
		// The messages of the damaged chunk are lost with it; their markers stay (nothing could say which they were).
		expect(storeProblems(under.decoded()).filter((problem) => !lost.some((id) => problem.includes(`marker of ${id} `)))).toEqual([]);
	});
});

describe('GIVEN Maya talking in a guild channel and in her DM, Theo too, all archived before located archives', () => {
	it('WHEN the sweep locates them and she erases everything THEN her words are gone from the channel and her DM, Theo’s stay', async () => {
		const under = await world();
		const talk = await busyChannel(under, 60);
		const dm: Said[] = [];
		for (let at = 0; at < 5; at++) dm.push(await under.say(MAYA, 'MAYADMW', { dm: true }));
		// A second reply to her first DM message, two chunks on.
		const dmLateReply = dm[0]!;
		await under.replyAgain(dmLateReply, { dm: true });
		for (let at = 0; at < 3; at++) await under.say(THEO, 'THEODMW', { dm: true });
		expect(under.chunks(MAYA_DM_ARCHIVE)).toBeGreaterThanOrEqual(3);
		await under.upgrade();
		expect((await under.engine.sweep()).archivesLocated).toBe(3);
		expect(locationProblems(under.decoded())).toEqual([]);

		// A deletion in her DM reads the chunks its marker names.
		under.store.reset();
		await under.engine.messagesChanged({ serverId: null, userId: MAYA.id, channelId: DM_CHANNEL, messageIds: [dmLateReply.id], kind: 'deleted' });
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2);
		expect(under.holders(dmLateReply.token)).toEqual([]);

		under.store.reset();
		await under.engine.clearAll(MAYA.id);
		// The channel's chunks of her words; her DM's archive goes whole.
		expect(under.store.chunkReads.length).toBeLessThanOrEqual(2 * (talk.maya.length + 2) + under.chunks(MAYA_DM_ARCHIVE) + 3);
		for (const text of ['MAYAW', 'MAYADMW', 'Maya-DMFILL', talk.hostless.replyText]) expect(under.holders(text), text).toEqual([]);
		expect(under.rowsNaming(MAYA.id, { ownArchives: true })).toEqual([]);
		// Her DM archive's chunks are left empty, as an erasure leaves them (the sweep deletes them in its turn).
		const dmLeft = [...under.decoded().values].filter(([key]) => key.startsWith(`archive:${MAYA_DM_ARCHIVE}:chunk:`));
		expect(dmLeft.flatMap(([, chunk]) => chunk as unknown[])).toEqual([]);
		expect(under.holders(`:by:${MAYA.id}`)).toEqual([]);
		for (const text of ['THEOW', 'THEODMW', 'Theo-DMFILL', 'NOVAW']) expect(under.holders(text), text).not.toEqual([]);
		for (const said of talk.theo) expect(under.holders(said.token), said.token).not.toEqual([]);
		expect(storeProblems(under.decoded())).toEqual([]);
	});
});

describe('GIVEN an SQLite file archived before located archives', () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	it('WHEN another process replies to early messages as sweeps locate it THEN it ends located and true; deletions take all replies', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'memory-locate-'));
		dirs.push(dir);
		const storeUrl = `sqlite://${join(dir, 'memory.sqlite')}`;
		const location = { storeUrl, namespace: 'memory' };
		const clock = new TestClock();
		// Two engines on one file, each with its own connection, caches and locks: two processes.
		const openEngine = () => MemoryEngine.open({ env: { MEMORY_STORE_URL: storeUrl }, config: { sweepIntervalMinutes: 0 }, now: clock.now });
		const under = new World(clock, () => sqliteRows(storeUrl));
		under.engine = await openEngine();
		const other = new World(clock, () => sqliteRows(storeUrl));
		const talk = await busyChannel(under, 60);
		await under.engine.close();
		unlocateSqlite(storeUrl);
		under.engine = await openEngine();
		other.engine = await openEngine();
		try {
			// Replies to messages of the first chunks, which the pass locates first or last, landing while it runs.
			const answered = talk.theo.slice(0, 16);
			let located = 0;
			for (let round = 0; round < 4; round++) {
				const replies = (async () => {
					for (const said of answered.slice(round * 4, round * 4 + 4)) await other.replyAgain(said);
				})();
				const [swept] = await Promise.all([under.engine.sweep(), replies]);
				located += swept.archivesLocated;
			}
			// A quiet sweep finishes what busy ones left unlocated (another process's append writes its head over).
			located += (await under.engine.sweep()).archivesLocated;
			expect(located).toBeGreaterThanOrEqual(1);
			expect(archiveHeads(decodeRows(sqliteRows(storeUrl))).get(GUILD_ARCHIVE)?.located).toBe(true);
			expect(locationProblems(decodeRows(sqliteRows(storeUrl)))).toEqual([]);
			await other.engine.close();
			await under.delete(answered.map((said) => said.id));
			await filesSettled(under.engine);
			for (const said of answered) expect(await holdersOf(location, said.token), said.token).toEqual([]);
			expect(await holdersOf(location, talk.theo[30]!.token)).not.toEqual([]);
		} finally {
			await other.engine.close().catch(() => undefined);
			await under.engine.close();
		}
	});

	it('WHEN the sweep locates it and messages are deleted and Maya erased THEN no row and no byte of the files keeps their words', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'memory-locate-'));
		dirs.push(dir);
		const storeUrl = `sqlite://${join(dir, 'memory.sqlite')}`;
		const clock = new TestClock();
		const openEngine = () => MemoryEngine.open({ env: { MEMORY_STORE_URL: storeUrl }, config: { sweepIntervalMinutes: 0 }, now: clock.now });
		// The same talk as on the Map, through a World whose engine is this one.
		const under = new World(clock, () => sqliteRows(storeUrl));
		under.engine = await openEngine();
		try {
			const talk = await busyChannel(under, 50);
			const edited = talk.theo[2]!;
			await under.replyAgain(edited);
			await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [edited.id], kind: 'edited' });
			await under.engine.close();
			const done = unlocateSqlite(storeUrl);
			expect(done.heads).toBe(1);
			expect(done.chunkSets).toBeGreaterThanOrEqual(3);
			expect(archiveHeads(decodeRows(sqliteRows(storeUrl))).get(GUILD_ARCHIVE)?.located).toBeUndefined();
			under.engine = await openEngine();

			expect((await under.engine.sweep()).archivesLocated).toBe(1);
			const stored = decodeRows(sqliteRows(storeUrl));
			expect(archiveHeads(stored).get(GUILD_ARCHIVE)?.located).toBe(true);
			expect(locationProblems(stored)).toEqual([]);

			await under.delete([talk.late.id]);
			await under.delete([edited.id]);
			await under.delete([talk.nova[1]!.id]);
			await under.engine.clearAll(MAYA.id);
			await filesSettled(under.engine);
			const location = { storeUrl, namespace: 'memory' };
			for (const gone of [talk.late.token, edited.token, talk.nova[1]!.token, ...talk.maya.map((said) => said.token), talk.hostless.replyText])
				expect(await holdersOf(location, gone), gone).toEqual([]);
			const rows = sqliteRows(storeUrl);
			expect([...rows.keys()].filter((key) => key.endsWith(`:by:${MAYA.id}`))).toEqual([]);
			expect(await holdersOf(location, talk.theo[30]!.token)).not.toEqual([]);
			expect(locationProblems(decodeRows(rows))).toEqual([]);
		} finally {
			await under.engine.close();
		}
	});
});
