/**
 * Forgetting costs what it forgets: in a located archive (every one begun by this version), a message deleted on Discord
 * is found by its marker, which names its chunk and its replies' chunks, and only the entries that can hold it are read
 * (the persona's server scope, and its author's own); the archive's other chunks and the other members' entries are
 * never read, whatever the channel's size. Counted on a Map store, which sees every key the engine reads.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { MemoryEngine, type MemoryTurn } from '../../src';
import { TestClock } from '../support/backends';
import { isArchiveMarkerKey } from '../support/store-inspection';
import { Keys, scopeTag } from '../../src/engine/store/keys';
import { ask, CHANNEL, GUILD, MAYA, said, snowflake, THEO } from '../support/turns';

const MINUTE = 60_000;
/** Members talking besides Maya and Theo. */
const OTHERS = Array.from({ length: 30 }, (_, at) => ({ id: String(700_000_000_000_000_000n + BigInt(at)), name: `Member ${at}` }));

/** A Map that counts the chunks and the members' own entries the engine reads through Keyv. */
class ReadCountingMap extends Map<string, unknown> {
	public chunkReads = 0;
	public userEntryReads = new Set<string>();

	public override get(key: string) {
		if (/:chunk:\d+$/.test(key)) this.chunkReads++;
		else if (/^[^:]*:shortterm:user:/.test(key)) this.userEntryReads.add(key);
		return super.get(key);
	}

	public reset(): void {
		this.chunkReads = 0;
		this.userEntryReads.clear();
	}
}

/** Every row of the map as stored, keys and values. */
const rawText = (map: Map<string, unknown>) => JSON.stringify([...map.entries()]);

async function openOnMap() {
	const map = new ReadCountingMap();
	const clock = new TestClock();
	const engine = await MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, config: { sweepIntervalMinutes: 0 }, now: clock.now });
	return { map, clock, engine };
}

/** A busy turn: 20 messages of the other members, then `who`'s message and Sol's reply to it. */
function busyTurn(clock: TestClock, who: { id: string; name: string }, text: string, at: number): MemoryTurn {
	clock.advance(MINUTE);
	const history = OTHERS.slice(0, 20).map((member, offset) =>
		said(OTHERS[(at + offset) % OTHERS.length] ?? member, `chatter ${at}-${offset} about the garden`, clock.current - 30 + offset)
	);
	return {
		userId: who.id,
		userName: who.name,
		serverId: GUILD,
		channelId: CHANNEL,
		history: [...history, said(who, text, clock.current - 5)],
		responses: [{ text: `Sol answers ${at}`, personaId: 'sol', personaName: 'Sol', messageId: snowflake() }]
	};
}

/** Records `turns` busy turns (some 22 messages each: a chunk holds 64), Maya's every tenth; returns her message ids. */
async function busyChannel(engine: MemoryEngine, clock: TestClock, turns: number): Promise<string[]> {
	const maya: string[] = [];
	for (let at = 0; at < turns; at++) {
		const mine = at % 10 === 5;
		const recorded = busyTurn(clock, mine ? MAYA : THEO, mine ? `maya secret ${at} KESTREL${at}` : `theo talk ${at}`, at);
		await engine.recordTurn(recorded);
		if (mine) maya.push(recorded.history.at(-1)!.messageId!);
	}
	return maya;
}

describe('GIVEN a channel of some 2,000 messages (about 35 chunks) where Maya speaks now and then', () => {
	it('WHEN one of her messages is deleted THEN its chunk alone is read, with her entry and no one else’s, and nothing is left', async () => {
		const { map, clock, engine } = await openOnMap();
		try {
			const mine = await busyChannel(engine, clock, 90);
			const deleted = mine[4]!;
			map.reset();
			const result = await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [deleted], kind: 'deleted' });
			// Her message and Sol's reply to it, found in the one chunk that holds both.
			expect(result.archivedMessagesRemoved).toBe(2);
			expect(map.chunkReads).toBeLessThanOrEqual(2);
			expect(
				[...map.userEntryReads].every((key) => key.includes(MAYA.id)),
				[...map.userEntryReads].join(', ')
			).toBe(true);
			const context = await engine.buildContext(ask({ query: 'maya secret KESTREL45' }));
			expect(context.text).not.toContain('KESTREL45');
			expect(rawText(map)).not.toContain('KESTREL45');
		} finally {
			await engine.close();
		}
	});

	it('WHEN Maya erases everything THEN only the chunks holding her words are read, and none of her words is left', async () => {
		const { map, clock, engine } = await openOnMap();
		try {
			const mine = await busyChannel(engine, clock, 90);
			map.reset();
			const result = await engine.clearAll(MAYA.id);
			// Her nine messages and Sol's nine replies to them, each pair in one chunk (a pair may straddle two).
			expect(result.archivedMessagesRemoved).toBe(2 * mine.length);
			expect(map.chunkReads).toBeLessThanOrEqual(2 * mine.length);
			expect(rawText(map)).not.toMatch(/KESTREL/);
			expect(rawText(map)).toContain('theo talk 89');
		} finally {
			await engine.close();
		}
	});

	it('WHEN her message’s marker was damaged (its replies not a list) THEN the deletion reads the archive whole, and it goes', async () => {
		const { map, clock, engine } = await openOnMap();
		try {
			const mine = await busyChannel(engine, clock, 40);
			const markerKey = [...map.keys()].find((key) => isArchiveMarkerKey(key) && key.endsWith(`:${mine[1]!}`))!;
			const row = JSON.parse(map.get(markerKey) as string) as { value: { d: unknown } };
			row.value.d = { c: 0, r: 5 };
			map.set(markerKey, JSON.stringify(row));
			map.reset();
			const result = await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [mine[1]!], kind: 'deleted' });
			expect(result.archivedMessagesRemoved).toBe(2);
			expect(map.chunkReads).toBeGreaterThan(10);
			expect(rawText(map)).not.toContain('KESTREL15');
		} finally {
			await engine.close();
		}
	});

	it('WHEN the same message is deleted again THEN no chunk and no member’s entry is read', async () => {
		const { map, clock, engine } = await openOnMap();
		try {
			const mine = await busyChannel(engine, clock, 40);
			const change = { serverId: GUILD, channelId: CHANNEL, messageIds: [mine[2]!], kind: 'deleted' as const };
			await engine.messagesChanged(change);
			map.reset();
			await engine.messagesChanged(change);
			expect(map.chunkReads).toBe(0);
			expect([...map.userEntryReads]).toEqual([]);
		} finally {
			await engine.close();
		}
	});

	it('WHEN her message is edited away, a reply to it lands in a later chunk, and then it is deleted THEN both replies go', async () => {
		const { map, clock, engine } = await openOnMap();
		try {
			await busyChannel(engine, clock, 10);
			clock.advance(MINUTE);
			const question = said(MAYA, 'my locker code is LOCKER-5521', clock.current);
			const first = { text: 'I will remember LOCKER-5521', personaId: 'sol', personaName: 'Sol', messageId: snowflake() };
			await engine.recordTurn({
				userId: MAYA.id,
				userName: 'Maya',
				serverId: GUILD,
				channelId: CHANNEL,
				history: [question],
				responses: [first]
			});
			await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [question.messageId!], kind: 'edited' });
			// Enough talk to fill the chunk, then a late reply to her message, in another chunk.
			await busyChannel(engine, clock, 6);
			clock.advance(MINUTE);
			const late = { text: 'Again: LOCKER-5521, noted', personaId: 'sol', personaName: 'Sol', messageId: snowflake() };
			await engine.recordTurn({
				userId: MAYA.id,
				userName: 'Maya',
				serverId: GUILD,
				channelId: CHANNEL,
				history: [question],
				responses: [late]
			});
			await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [question.messageId!], kind: 'deleted' });
			expect(rawText(map)).not.toContain('LOCKER-5521');
		} finally {
			await engine.close();
		}
	});
});

/** Moves every tagged marker of the map to its untagged key, as an archive written before tags holds them. */
function untagMarkers(map: Map<string, unknown>): number {
	const scopeOfTag = new Map<string, string>();
	for (const key of map.keys()) {
		const scopeKey = /^keyv:archive:(.+):head$/.exec(key)?.[1];
		if (scopeKey) scopeOfTag.set(scopeTag(scopeKey), scopeKey);
	}
	let moved = 0;
	for (const [key, value] of [...map.entries()]) {
		const tagged = /^keyv:seen:([\w-]{16}):(.+)$/.exec(key);
		if (!tagged) continue;
		map.delete(key);
		map.set(`keyv:${Keys.archiveMarkerUntagged(scopeOfTag.get(tagged[1]!)!, tagged[2]!)}`, value);
		moved++;
	}
	return moved;
}

describe('GIVEN a channel whose archive keeps its markers untagged, as archives written before tags do', () => {
	it('WHEN a turn repeats its messages, one is deleted, then all expire THEN none is archived twice and no marker is left', async () => {
		const { map, clock, engine } = await openOnMap();
		try {
			const mine = await busyChannel(engine, clock, 40);
			const last = busyTurn(clock, THEO, 'theo talk 40', 40);
			await engine.recordTurn(last);
			expect(untagMarkers(map)).toBeGreaterThan(800);
			const counts = () =>
				[...map.entries()]
					.filter(([key]) => key.endsWith(':head'))
					.map(([, value]) => (JSON.parse(value as string) as { value: { d: { count: number } } }).value.d.count);
			const before = counts();
			// The same turn again: every message of it is archived already, under untagged markers.
			await engine.recordTurn(last);
			expect(counts()).toEqual(before);
			map.reset();
			const result = await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [mine[2]!], kind: 'deleted' });
			// Found by its untagged marker: her message and Sol's reply, in the one chunk that holds both.
			expect(result.archivedMessagesRemoved).toBe(2);
			expect(map.chunkReads).toBeLessThanOrEqual(2);
			expect(rawText(map)).not.toContain('KESTREL25');
			clock.advance(40 * 24 * 3_600_000);
			await engine.sweep();
			expect([...map.keys()].filter(isArchiveMarkerKey)).toEqual([]);
		} finally {
			await engine.close();
		}
	});
});
