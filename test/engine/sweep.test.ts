import { statSync } from 'node:fs';
import Keyv from 'keyv';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ContextRequest, MemoryEngine, type MemoryTurn } from '../../src';
import { Registry } from '../../src/engine/records/Registry';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { sqlitePath } from '../../src/engine/store/backends';
import { backends, openEngine, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import {
	holdsMarkerOf,
	isShortTermKey,
	keysOfRows,
	layout,
	rawRows,
	rowKind,
	serverScopeKey,
	sweepableRows,
	userScopeKey
} from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, said, snowflake, THEO, turn } from '../support/turns';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

for (const backend of backends) {
	describe(`GIVEN memory on ${backend.name} and a sweep`, () => {
		const clock = new TestClock();
		const t = freshEngineEachTest(backend, clock);

		it('WHEN short-term entries expire THEN the sweep deletes them and their listings, and keeps the live ones', async () => {
			await t.engine.recordTurn(turn({ text: 'the old channel talk' }));
			await t.engine.recordTurn(turn({ serverId: null, channelId: DM_CHANNEL, text: 'a private chat' }));
			clock.hours(13);
			await t.engine.recordTurn(turn({ channelId: OTHER_CHANNEL, text: 'the new channel talk', who: THEO }));

			const result = await t.engine.sweep();

			// Maya's user scope and the server scope of the first channel, and her DM scope; her directory and the first channel's.
			expect(result).toMatchObject({ entriesDeleted: 3, directoriesDeleted: 2 });
			const keys = keysOfRows(await t.inspect.rows(), t.namespace);
			expect(keys.filter((key) => isShortTermKey(key) && (key.includes(CHANNEL) || key.includes(DM_CHANNEL)))).toEqual([]);
			expect(keys).toContain(serverScopeKey(GUILD, OTHER_CHANNEL, 'sol'));
			expect(keys).toContain(userScopeKey(THEO.id, OTHER_CHANNEL, 'sol'));
			// The archives are within retention: they stay.
			expect(keys).toContain(t.inspect.archive(serverScopeKey(GUILD, CHANNEL, 'sol')).head.key);
			// Maya's directory is gone; the server's lists only the live channel.
			expect(keys).not.toContain(t.inspect.userDirectory(MAYA.id).key);
			const serverIndex = t.inspect.serverDirectory(GUILD).rowIn(await t.inspect.rows())!;
			expect(serverIndex).toContain(OTHER_CHANNEL);
			expect(serverIndex).not.toContain(`:${CHANNEL}:`);
			expect((await t.engine.buildContext(ask({ userId: THEO.id, channelId: OTHER_CHANNEL }))).text).toContain('the new channel talk');
		});

		it('WHEN archived messages pass retention THEN whole chunks go with their markers, and the archive with its head once empty', async () => {
			const opened = await openEngine(backend, { now: clock.now, config: { archiveRetentionDays: 2 } });
			try {
				const { engine } = opened;
				// 40 turns of two messages: a first chunk of 64 and a second of 16, all on day 0.
				const oldIds: string[] = [];
				for (let index = 0; index < 40; index++) {
					clock.advance(60_000);
					const recorded = turn({ text: `day zero note ${index}`, timestamp: clock.current });
					oldIds.push(recorded.history[0]!.messageId!, recorded.responses[0]!.messageId!);
					await engine.recordTurn(recorded);
				}
				clock.advance(2.5 * DAY);
				for (let index = 0; index < 5; index++) {
					clock.advance(60_000);
					await engine.recordTurn(turn({ text: `fresh budget remark ${index}`, timestamp: clock.current }));
				}

				const first = await engine.sweep();
				expect(first).toMatchObject({ chunksDeleted: 1, archivedMessagesDeleted: 64, markersDeleted: 64, archivesDeleted: 0 });
				let rows = await rawRows(opened);
				const archive = layout.archive(serverScopeKey(GUILD, CHANNEL, 'sol'));
				expect(rows.some((row) => row.includes(`${archive.chunk(0).key} `))).toBe(false);
				expect(rows.some((row) => row.includes(`${archive.chunk(1).key} `))).toBe(true);
				expect(rows.filter((row) => oldIds.slice(0, 64).some((id) => row.includes(`${archive.marker(id).key} `)))).toEqual([]);
				// The second chunk straddles the retention start: kept whole, its old messages never served.
				expect(rows.filter((row) => oldIds.slice(64).some((id) => row.includes(`${archive.marker(id).key} `)))).toHaveLength(16);
				expect((await engine.buildContext(ask({ query: 'budget remark' }))).text).toContain('fresh budget remark');
				expect((await engine.buildContext(ask({ query: 'day zero note' }))).text).not.toContain('day zero note');

				clock.advance(3 * DAY);
				const second = await engine.sweep();
				expect(second).toMatchObject({ chunksDeleted: 1, archivedMessagesDeleted: 26, archivesDeleted: 1, entriesDeleted: 2 });
				rows = await rawRows(opened);
				expect(sweepableRows(rows)).toEqual([]);
			} finally {
				await opened.dispose();
			}
		});

		it('WHEN everything has expired THEN a sweep leaves nothing but settings', async () => {
			await t.engine.setUserSettings(NOVA.id, { crossServerOptIn: true });
			await t.engine.recordTurn(turn({ history: [said(MAYA, 'hi all'), said(THEO, 'hello Maya'), said(NOVA, 'hey')] }));
			await t.engine.recordTurn(turn({ who: THEO, channelId: OTHER_CHANNEL, personaId: 'luna' }));
			await t.engine.recordTurn(turn({ who: NOVA, serverId: null, channelId: DM_CHANNEL }));
			await t.engine.updateShortTermMemory(
				{ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' },
				'Maya greeted everyone.'
			);
			await t.engine.clearAll(THEO.id);
			await t.engine.wipeChannel(GUILD, OTHER_CHANNEL);
			expect(sweepableRows(await t.inspect.rows()).length).toBeGreaterThan(0);

			clock.advance(31 * DAY);
			await t.engine.sweep();

			expect(sweepableRows(await t.inspect.rows())).toEqual([]);
			expect(await t.engine.status(MAYA.id)).toMatchObject({ shortTermEntries: 0, archivedMessages: 0 });
		});

		it('WHEN a member was erased THEN the markers kept as tombstones go once past retention', async () => {
			const recorded = turn({ who: THEO, text: 'forget me later' });
			await t.engine.recordTurn(recorded);
			await t.engine.recordTurn(turn({ text: 'I stay' }));
			await t.engine.clearAll(THEO.id);
			const marker = holdsMarkerOf(recorded.history[0]!.messageId!);
			expect((await t.inspect.rows()).some(marker)).toBe(true);

			clock.advance(10 * DAY);
			await t.engine.sweep();
			expect((await t.inspect.rows()).some(marker)).toBe(true);
			clock.advance(21 * DAY);
			await t.engine.sweep();
			expect((await t.inspect.rows()).some(marker)).toBe(false);
		});

		it('WHEN two processes register ids in the same registry at once THEN none is lost', async () => {
			const other = await MemoryStore.open({ storeUrl: t.storeUrl, namespace: t.namespace, sqliteDriver: backend.config.sqliteDriver });
			try {
				const [mine, theirs] = [new Registry(t.inspect.store!), new Registry(other)];
				const ids = Array.from({ length: 200 }, (_, index) => `${700000000000000000n + BigInt(index)}`);
				await Promise.all(ids.map((id, index) => (index % 2 === 0 ? mine : theirs).note('users', GUILD, id)));
				await Promise.all([mine.settled(), theirs.settled()]);
				expect((await t.inspect.registered('users')).sort()).toEqual([...ids].sort());
			} finally {
				await other.close();
			}
		});

		it('THEN contexts built before and after a sweep are identical for live data', async () => {
			// More than a chunk of old messages in the channel and the DM, a few in another channel.
			const old = ['tractor', 'harvest', 'silo'];
			for (let index = 0; index < 33; index++) {
				const word = old[index % old.length]!;
				clock.advance(60_000);
				await t.engine.recordTurn(turn({ text: `${word} story ${index}`, timestamp: clock.current }));
				await t.engine.recordTurn(
					turn({ serverId: null, channelId: DM_CHANNEL, text: `${word} in private ${index}`, timestamp: clock.current })
				);
				if (index < 3)
					await t.engine.recordTurn(
						turn({ who: THEO, channelId: OTHER_CHANNEL, text: `${word} in the other channel`, timestamp: clock.current })
					);
			}
			clock.advance(31 * DAY);
			for (let index = 0; index < 12; index++) {
				clock.advance(10 * 60_000);
				await t.engine.recordTurn(turn({ text: `the lighthouse keeper number ${index} waves`, timestamp: clock.current }));
				await t.engine.recordTurn(
					turn({ serverId: null, channelId: DM_CHANNEL, text: `my lighthouse postcard number ${index}`, timestamp: clock.current })
				);
			}
			await t.engine.recordTurn(turn({ who: THEO, channelId: OTHER_CHANNEL, text: 'a lighthouse of our own', timestamp: clock.current }));
			const requests: ContextRequest[] = [
				ask({ query: 'lighthouse keeper' }),
				ask({ query: 'tractor harvest silo' }),
				ask({ userId: THEO.id, channelId: OTHER_CHANNEL, query: 'lighthouse' }),
				ask({ serverId: null, channelId: DM_CHANNEL, query: 'lighthouse postcard' })
			];
			const before = [];
			for (const request of requests) before.push(await t.engine.buildContext(request));

			const result = await t.engine.sweep();
			expect(result.chunksDeleted).toBeGreaterThan(0);

			for (const [index, request] of requests.entries()) expect(await t.engine.buildContext(request)).toEqual(before[index]);
			expect(before[0]!.blocks.map((block) => block.tier)).toEqual(expect.arrayContaining(['summary', 'relevant', 'recent']));
			expect(before[3]!.blocks.map((block) => block.tier)).toEqual(expect.arrayContaining(['relevant', 'recent']));
		});
	});
}

describe('GIVEN MEMORY_SWEEP_INTERVAL_MINUTES', () => {
	const backend = backends.find((candidate) => candidate.name === 'sqlite')!;
	const opened: { dispose: () => Promise<void> }[] = [];
	afterEach(async () => {
		vi.restoreAllMocks();
		for (const handle of opened.splice(0)) await handle.dispose();
	});

	async function until(condition: () => boolean, ms = 3000): Promise<void> {
		const deadline = Date.now() + ms;
		while (!condition()) {
			if (Date.now() > deadline) throw new Error('timed out');
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	}

	it('THEN open starts a timer that sweeps, does not keep the process alive, and close stops it', async () => {
		const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
		const clearIntervalSpy = vi.spyOn(globalThis, 'clearInterval');
		const clock = new TestClock();
		// 0.001 minutes: the timer looks every 60 ms.
		const handle = await openEngine(backend, { now: clock.now, config: { sweepIntervalMinutes: 0.001 } });
		opened.push(handle);
		const timer = setIntervalSpy.mock.results.find((_, index) => setIntervalSpy.mock.calls[index]![1] === 60)?.value as NodeJS.Timeout;
		expect(timer).toBeDefined();
		expect(timer.hasRef()).toBe(false);

		await until(() => handle.engine.stats().sweeps.runs === 1);
		await handle.engine.recordTurn(turn());
		clock.hours(13);
		await until(() => handle.engine.stats().sweeps.runs === 2);
		expect(handle.engine.stats().sweeps.last).toMatchObject({ entriesDeleted: 2 });

		await handle.engine.close();
		expect(clearIntervalSpy).toHaveBeenCalledWith(timer);
		clock.hours(13);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(handle.engine.stats().sweeps.runs).toBe(2);
	});

	it('WHEN it is 0 THEN no timer starts', async () => {
		const setIntervalSpy = vi.spyOn(globalThis, 'setInterval');
		const handle = await openEngine(backend, { config: { sweepIntervalMinutes: 0 } });
		opened.push(handle);
		expect(setIntervalSpy).not.toHaveBeenCalled();
	});

	it('WHEN another process swept within the interval THEN this one waits its turn', async () => {
		const clock = new TestClock();
		const first = await openEngine(backend, { now: clock.now, config: { sweepIntervalMinutes: 0.001 } });
		opened.push(first);
		await until(() => first.engine.stats().sweeps.runs === 1);
		await first.engine.close();
		const second = await MemoryEngine.open({ env: {}, now: clock.now, config: { storeUrl: first.storeUrl, sweepIntervalMinutes: 0.001 } });
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(second.stats().sweeps.runs).toBe(0);
		clock.advance(60_000);
		await until(() => second.stats().sweeps.runs === 1);
		await second.close();
	});

	it('WHEN the store fails THEN the timer logs the error and never throws', async () => {
		const map = new Map<string, unknown>();
		let failing = false;
		const store = new Proxy(map, {
			get(target, property, receiver) {
				if (failing && (property === 'get' || property === 'set'))
					return () => {
						throw new Error('disk on fire');
					};
				const value = Reflect.get(target, property, receiver) as unknown;
				return typeof value === 'function' ? value.bind(target) : value;
			}
		});
		const logger = { warn: vi.fn(), error: vi.fn() };
		const engine = await MemoryEngine.open({ env: {}, keyv: new Keyv({ store }), logger, config: { sweepIntervalMinutes: 0.001 } });
		failing = true;
		await until(() => logger.error.mock.calls.length > 0);
		expect(String(logger.error.mock.calls[0]![0])).toContain('sweep');
		failing = false;
		await engine.close();
	});

	it('THEN two sweeps never run at once, and close waits for the one running', async () => {
		const handle = await openEngine(backend, { config: { sweepIntervalMinutes: 0 } });
		opened.push(handle);
		await handle.engine.recordTurn(turn());
		const [a, b] = [handle.engine.sweep(), handle.engine.sweep()];
		let settled = false;
		void a.then(() => (settled = true));
		await handle.engine.close();
		expect(settled).toBe(true);
		expect(await a).toBe(await b);
	});
});

/** Opens the SQLite file read-only beside the engine, to measure it. */
function openSqlite(path: string): { all: (sql: string) => Promise<Record<string, number>[]>; close: () => Promise<void> } {
	const db = new Database(path);
	return {
		all: (sql) => new Promise((resolve) => resolve(db.prepare<[], Record<string, number>>(sql).all())),
		close: () =>
			new Promise((resolve) => {
				db.close();
				resolve();
			})
	};
}

describe('GIVEN a bot with steady traffic on SQLite, 7 days of archive retention and a daily sweep', () => {
	const DAYS = 60;
	const RETENTION = 7;
	const CHANNELS = ['810000000000000101', '810000000000000102', '810000000000000103'];
	const TURNS_PER_CHANNEL = 12;
	const REGULARS = [MAYA, THEO, NOVA];

	it(`THEN after the retention period the file and its row count stop growing (${DAYS} simulated days)`, async () => {
		const clock = new TestClock(Date.UTC(2026, 0, 1));
		const backend = backends.find((candidate) => candidate.name === 'sqlite')!;
		const handle = await openEngine(backend, { now: clock.now, config: { archiveRetentionDays: RETENTION, sweepIntervalMinutes: 0 } });
		const path = sqlitePath(handle.storeUrl);
		const db = openSqlite(path);
		const lastMessages = new Map<string, MemoryTurn['history']>();
		const figures: { day: number; bytes: number; rows: number; freePages: number; deleted: number; sweepMs: number }[] = [];
		try {
			for (let day = 1; day <= DAYS; day++) {
				// One new member a day speaks in a channel and in a DM, and never comes back.
				const visitor = { id: `9000000000000${String(day).padStart(5, '0')}`, name: `Visitor ${day}` };
				const turnsToday: MemoryTurn[] = [];
				for (const [index, channelId] of CHANNELS.entries()) {
					for (let n = 0; n < TURNS_PER_CHANNEL; n++) {
						const who = n === 5 && index === 1 ? visitor : REGULARS[(n + index) % REGULARS.length]!;
						turnsToday.push({
							userId: who.id,
							userName: who.name,
							serverId: GUILD,
							channelId,
							history: [said(who, `day ${day} turn ${n}: ${who.name} talks about plans number ${(day * 7 + n) % 23}`)],
							responses: [
								{
									text: `Noted, ${who.name}, plan ${n} sounds good.`,
									personaId: index === 0 && n % 3 === 0 ? 'luna' : 'sol',
									personaName: 'Sol',
									messageId: snowflake()
								}
							]
						});
					}
				}
				for (let n = 0; n < 2; n++) {
					turnsToday.push({
						userId: visitor.id,
						userName: visitor.name,
						serverId: null,
						channelId: `8200000000000${String(day).padStart(5, '0')}`,
						history: [said(visitor, `hello, first time here, question ${n}`)],
						responses: [{ text: 'Welcome!', personaId: 'sol', personaName: 'Sol', messageId: snowflake() }]
					});
				}
				const step = DAY / (turnsToday.length + 1);
				for (const recorded of turnsToday) {
					clock.advance(step);
					const key = `${recorded.serverId}:${recorded.channelId}`;
					// The bot hands over the channel's last messages as history, as a real one does.
					const history = [
						...(lastMessages.get(key) ?? []),
						...recorded.history.map((message) => ({ ...message, timestamp: clock.current }))
					];
					lastMessages.set(key, [
						...history.slice(-1),
						{
							role: 'persona' as const,
							authorId: 'sol',
							text: recorded.responses[0]!.text,
							messageId: recorded.responses[0]!.messageId,
							timestamp: clock.current + 1
						}
					]);
					await handle.engine.recordTurn({ ...recorded, history, timestamp: clock.current });
				}
				clock.advance(step);
				const result = await handle.engine.sweep();
				await db.all('PRAGMA wal_checkpoint(TRUNCATE)');
				const [{ rows }] = (await db.all('SELECT count(*) AS rows FROM keyv')) as [{ rows: number }];
				const [{ freelist_count: freePages }] = (await db.all('PRAGMA freelist_count')) as [{ freelist_count: number }];
				const deleted =
					result.entriesDeleted + result.chunksDeleted + result.markersDeleted + result.authorListingsDeleted + result.directoriesDeleted;
				figures.push({ day, bytes: statSync(path).size, rows, freePages, deleted, sweepMs: result.durationMs });
				if (day === RETENTION + 7 || day === DAYS) {
					const keys = (await db.all('SELECT key FROM keyv')) as unknown as { key: string }[];
					const kinds = new Map<string, number>();
					for (const { key } of keys) {
						const kind = rowKind(key);
						kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
					}
					console.log(
						`[sweep] rows by kind on day ${day}: ${[...kinds]
							.sort()
							.map(([kind, count]) => `${kind} ${count}`)
							.join(', ')}`
					);
				}
			}
		} finally {
			await db.close();
			await handle.dispose();
		}

		console.log(
			`[sweep] ${DAYS} simulated days, ${CHANNELS.length} channels x ${TURNS_PER_CHANNEL} ` +
				`turns + a new member's 2 DM turns a day, retention ${RETENTION} days, swept daily`
		);
		console.log('[sweep] day   file bytes   rows  free pages  deleted  sweep ms');
		for (const figure of figures) {
			if (figure.day % 5 !== 0 && figure.day !== RETENTION + 7 && figure.day !== 1) continue;
			console.log(
				`[sweep] ${String(figure.day).padStart(3)} ${String(figure.bytes).padStart(12)} ` +
					`${String(figure.rows).padStart(6)} ${String(figure.freePages).padStart(11)} ` +
					`${String(figure.deleted).padStart(8)} ${String(figure.sweepMs).padStart(9)}`
			);
		}
		const settled = figures[RETENTION + 7 - 1]!;
		const lastTwoWeeks = figures.slice(-14);
		const maxBytes = Math.max(...lastTwoWeeks.map((figure) => figure.bytes));
		const maxRows = Math.max(...lastTwoWeeks.map((figure) => figure.rows));
		console.log(
			`[sweep] day ${settled.day}: ${settled.bytes} bytes, ${settled.rows} rows; last two weeks' max: ${maxBytes} bytes, ${maxRows} rows`
		);
		expect(maxBytes).toBeLessThanOrEqual(settled.bytes * 1.1);
		expect(maxRows).toBeLessThanOrEqual(settled.rows * 1.1);
	}, 60_000);
});
