import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryConfig, MemoryContext, MemoryTurn } from '../../src';
import { backends, skipEachWhereUnavailable } from '../support/backends';
import { ShardProcess } from '../support/shards';
import { serverScopeKey, StoreInspection, userScopeKey } from '../support/store-inspection';
import { ask, MAYA, NOVA, said, snowflake, THEO } from '../support/turns';

/**
 * Two shard processes of one bot, as Discord shards them: A owns guilds G1 and G2 and the DMs, B owns
 * G3. Maya (opted in to cross-server memory) and Theo (not opted in) talk in G1 and G3, Maya also in
 * G2 and her DM, Nova only in G3. Both processes record and build contexts at the same time.
 */
const G1 = '910000000000000001';
const G2 = '910000000000000002';
const G3 = '910000000000000003';
const C11 = '911000000000000011';
const C12 = '911000000000000012';
const C21 = '911000000000000021';
const C31 = '911000000000000031';
const C32 = '911000000000000032';
const MAYA_DM = '912000000000000001';

const ROUNDS = 25;

interface Who {
	id: string;
	name: string;
}

// Each turn a second after the one before, as a conversation's are, ending about now.
let saidAt = Date.now() - 8 * ROUNDS * 1000;

/** A turn of `who` saying `text` where given, answered by Sol; the text doubles as the marker a test looks for. */
function turnOf(who: Who, serverId: string | null, channelId: string, text: string): MemoryTurn {
	saidAt += 1000;
	const at = saidAt;
	return {
		userId: who.id,
		userName: who.name,
		serverId,
		channelId,
		timestamp: at,
		history: [said(who, text, at)],
		responses: [{ text: `Sol answers ${who.name}.`, personaId: 'sol', personaName: 'Sol', messageId: snowflake() }]
	};
}

/** The markers of `context` that come from `where` (e.g. "@G1#"). */
const markers = (context: MemoryContext, where: string) => context.text.match(new RegExp(`\\b\\w+${where}\\w+`, 'g')) ?? [];

const shardBackends = backends.filter((backend) => !backend.file);

describe.each(shardBackends)('GIVEN two shard processes sharing one $name store', (backend) => {
	skipEachWhereUnavailable(backend);
	let a: ShardProcess;
	let b: ShardProcess;
	let inspect: StoreInspection;
	let config: Partial<MemoryConfig>;

	beforeAll(async () => {
		if (backend.skipReason) return;
		const { storeUrl, namespace } = backend.url();
		// Every other channel fits, so what a context may show does not hang on which entries are newest.
		config = { storeUrl, storeNamespace: namespace, sweepIntervalMinutes: 0, maxOtherChannels: 10, contextTokenBudget: 8000 };
		[a, b] = await Promise.all([ShardProcess.start('A', config), ShardProcess.start('B', config)]);
		inspect = await StoreInspection.open({ storeUrl, namespace });
	}, 30_000);

	afterAll(async () => {
		await Promise.all([a?.stop(), b?.stop()]);
		if (!inspect) return;
		await inspect.clear();
		await inspect.close();
	});

	it(
		'WHEN both record and read at once THEN an opted-in member sees through B what she said through A, ' +
			'nobody else does, and every index stays complete',
		async () => {
			await a.call('setUserSettings', MAYA.id, { crossServerOptIn: true });
			const contexts: Promise<{ who: string; where: string; context: MemoryContext }>[] = [];
			const read = (shard: ShardProcess, who: Who, serverId: string | null, channelId: string, where: string) =>
				contexts.push(
					shard
						.call('buildContext', ask({ userId: who.id, serverId, channelId, query: 'what did we say' }))
						.then((context) => ({ who: who.name, where, context }))
				);
			const records: Promise<unknown>[] = [];
			const started = performance.now();
			for (let round = 0; round < ROUNDS; round++) {
				// Shard A: G1, G2 and the DMs.
				records.push(a.call('recordTurn', turnOf(MAYA, G1, round % 2 ? C12 : C11, `maya@G1#${round}`)));
				records.push(a.call('recordTurn', turnOf(THEO, G1, C11, `theo@G1#${round}`)));
				records.push(a.call('recordTurn', turnOf(MAYA, G2, C21, `maya@G2#${round}`)));
				records.push(a.call('recordTurn', turnOf(MAYA, null, MAYA_DM, `maya@DM#${round}`)));
				read(a, THEO, G1, C11, 'G1');
				read(a, MAYA, G1, C11, 'G1');
				// Shard B: G3.
				records.push(b.call('recordTurn', turnOf(MAYA, G3, round % 2 ? C32 : C31, `maya@G3#${round}`)));
				records.push(b.call('recordTurn', turnOf(THEO, G3, C31, `theo@G3#${round}`)));
				records.push(b.call('recordTurn', turnOf(NOVA, G3, C32, `nova@G3#${round}`)));
				read(b, NOVA, G3, C31, 'G3');
				read(b, THEO, G3, C31, 'G3');
				read(b, MAYA, G3, C31, 'G3');
			}
			await Promise.all(records);
			const during = await Promise.all(contexts);
			const elapsed = performance.now() - started;
			console.info(
				`[shards ${backend.name}] ${records.length} turns and ${contexts.length} contexts over two processes in ${elapsed.toFixed(0)} ms`
			);

			// While both wrote: nobody saw another guild's or a DM's words, but Maya, and Maya only her own.
			for (const { who, where, context } of during) {
				const elsewhere = ['G1', 'G2', 'G3', 'DM'].filter((place) => place !== where).flatMap((place) => markers(context, `@${place}#`));
				if (who === 'Maya')
					expect(
						elsewhere.filter((marker) => !marker.startsWith('maya@')),
						`${who} in ${where}`
					).toEqual([]);
				else expect(elsewhere, `${who} in ${where}`).toEqual([]);
			}

			// What each said last, through the shard that owns the place.
			await Promise.all([
				a.call('recordTurn', turnOf(MAYA, G1, C11, 'maya@G1#final')),
				b.call('recordTurn', turnOf(MAYA, G3, C31, 'maya@G3#final'))
			]);
			const [mayaInG3, theoInG3, novaInG3, mayaInG1, theoInG1] = await Promise.all([
				b.call('buildContext', ask({ userId: MAYA.id, serverId: G3, channelId: C31 })),
				b.call('buildContext', ask({ userId: THEO.id, serverId: G3, channelId: C31 })),
				b.call('buildContext', ask({ userId: NOVA.id, serverId: G3, channelId: C32 })),
				a.call('buildContext', ask({ userId: MAYA.id, serverId: G1, channelId: C11 })),
				a.call('buildContext', ask({ userId: THEO.id, serverId: G1, channelId: C11 }))
			]);
			expect(mayaInG3.text).toContain('maya@G1#final');
			expect(markers(mayaInG3, '@G2#').length).toBeGreaterThan(0);
			expect(markers(mayaInG3, '@DM#').length).toBeGreaterThan(0);
			expect(markers(mayaInG3, '@G1#').filter((marker) => !marker.startsWith('maya@'))).toEqual([]);
			expect(mayaInG1.text).toContain('maya@G3#final');
			expect(markers(mayaInG1, '@G3#').filter((marker) => !marker.startsWith('maya@'))).toEqual([]);
			for (const context of [theoInG3, novaInG3])
				expect([...markers(context, '@G1#'), ...markers(context, '@G2#'), ...markers(context, '@DM#')]).toEqual([]);
			expect([...markers(theoInG1, '@G3#'), ...markers(theoInG1, '@G2#'), ...markers(theoInG1, '@DM#')]).toEqual([]);

			// Both processes wrote Maya's and Theo's user and author indexes: either process counts everything.
			const expected = {
				[MAYA.id]: { entries: 6, archived: 4 * ROUNDS + 2 },
				[THEO.id]: { entries: 2, archived: 2 * ROUNDS },
				[NOVA.id]: { entries: 1, archived: ROUNDS }
			};
			for (const shard of [a, b]) {
				for (const [userId, { entries, archived }] of Object.entries(expected)) {
					const [status, exported] = await Promise.all([shard.call('status', userId), shard.call('exportUser', userId)]);
					expect(status.shortTermEntries, `${userId}'s entries through ${shard.name}`).toBe(entries);
					expect(exported.shortTerm, `${userId}'s exported entries through ${shard.name}`).toHaveLength(entries);
					expect(
						exported.archive.filter((message) => message.role === 'user'),
						`${userId}'s exported archive through ${shard.name}`
					).toHaveLength(archived);
				}
			}
			// Archived counts are held in memory by the shard that counted them, and written every ten minutes.
			await Promise.all([a.flushAuthorCounts(), b.flushAuthorCounts()]);
			// Both flushes write Maya's author index at once: the one written over is read back and put back within 100 ms.
			await new Promise((resolve) => setTimeout(resolve, 300));
			for (const shard of [a, b]) {
				for (const [userId, { archived }] of Object.entries(expected))
					expect((await shard.call('status', userId)).archivedMessages, `${userId}'s archived count through ${shard.name}`).toBe(archived);
			}
			const [mayaIndex, mayaAuthored] = await Promise.all([inspect.userDirectory(MAYA.id).read(), inspect.authorIndex(MAYA.id).read()]);
			expect(Object.keys(mayaIndex!)).toHaveLength(6);
			expect(Object.keys(mayaAuthored!)).toHaveLength(6);

			// The registries list every id either process wrote (their reads back are done by now).
			const [servers, users, authors, archives] = await Promise.all([
				inspect.registered('servers'),
				inspect.registered('users'),
				inspect.registered('authors'),
				inspect.registered('archives')
			]);
			expect(servers.sort()).toEqual([G1, G2, G3].sort());
			expect(users.sort()).toEqual([MAYA.id, THEO.id, NOVA.id].sort());
			expect(authors.sort()).toEqual([MAYA.id, THEO.id, NOVA.id].sort());
			expect(archives.sort()).toEqual(
				[
					...[C11, C12].map((channel) => serverScopeKey(G1, channel, 'sol')),
					serverScopeKey(G2, C21, 'sol'),
					...[C31, C32].map((channel) => serverScopeKey(G3, channel, 'sol')),
					userScopeKey(MAYA.id, MAYA_DM, 'sol')
				].sort()
			);
			const repaired = (await Promise.all([a.call('stats'), b.call('stats')])).map((stats) => stats.sharedWritesRepaired);
			console.info(
				`[shards ${backend.name}] shared index writes written over by the other process and put back: ${repaired.join(' (A), ')} (B)`
			);
		},
		40_000
	);
});
