import { describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { rowsHolding, serverScopeKey, type StoreInspection, type StorePlace, userScopeKey } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_GUILD, OTHER_CHANNEL, said, snowflake, THEO, turn } from '../support/turns';

/** Rows as a damaged disk, a partial restore, a hand edit or a bug leave them. */
const DAMAGE = [
	['not JSON', '{"value":{"v":1,"d":{"scope":"ser'],
	['of the wrong shape', '{"value":{"v":1,"d":"DAMAGED-garbage"}}'],
	['nested 10,000 deep', `{"value":{"v":1,"d":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`]
] as const;

/** Maya's message that the channel's archive holds, by id (its marker is a kind of row of its own). */
const MAYAS_FIRST = snowflake();
/** Theo's message deleted on Discord (its record is a kind of row of its own). */
const DELETED = snowflake();

/**
 * The kinds of stored value test/engine/damaged-rows.test.ts leaves out (topics, an archive's markers and tombstones,
 * a channel's archive list, a deleted message's record and the list before them, a server's list of members who left, a pending purge, a registry
 * bucket, the sweep's lease, the encryption check), each damaged three ways: every public call still works for
 * everyone, and Maya can still be erased, whole.
 */
describe.each(backends)('a damaged value of another kind on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 2, serverPurgeGraceHours: 24 });

	/** Every kind of row gets written: a topic, archives with markers and tombstones, deletions, a member who left, a pending purge, a sweep. */
	async function converse() {
		await under.engine.saveTopic(MAYA.id, 'boat trip', 'MAYA-TOPIC-1 the ferry leaves at nine');
		await under.engine.recordTurn({
			...turn({ who: MAYA, reply: 'Noted MAYA-REPLY-0.' }),
			history: [said(MAYA, 'MAYA-WORD-0 boat', clock.current, MAYAS_FIRST)]
		});
		for (let index = 1; index < 3; index++) {
			clock.advance(60_000);
			await under.engine.recordTurn(turn({ who: MAYA, text: `MAYA-WORD-${index} about the boat`, reply: `Noted MAYA-REPLY-${index}.` }));
			clock.advance(60_000);
			await under.engine.recordTurn(turn({ who: THEO, text: `theo speaks of crates ${index}`, reply: `Logged ${index}.` }));
		}
		await under.engine.recordTurn({ ...turn({ who: THEO, reply: 'Logged.' }), history: [said(THEO, 'theo typo', clock.current, DELETED)] });
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [DELETED], kind: 'deleted' });
		await under.engine.recordTurn(turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'MAYA-WORD-DM', reply: 'MAYA-REPLY-DM' }));
		await under.engine.recordTurn(turn({ who: NOVA, text: 'nova says goodbye' }));
		await under.engine.memberLeft(GUILD, NOVA.id);
		await under.engine.recordTurn(turn({ who: THEO, serverId: OTHER_GUILD, channelId: OTHER_CHANNEL, text: 'theo elsewhere' }));
		await under.engine.serverRemoved(OTHER_GUILD);
		await under.engine.sweep();
	}

	const live = serverScopeKey(GUILD, CHANNEL, 'sol');
	/**
	 * The place, and whether it holds Maya's words (her erasure then takes it, damaged or not). Markers, tombstones, lists
	 * and registries hold ids and times only: a damaged one is replaced by the next write of its key.
	 */
	const places: [string, (inspect: StoreInspection) => StorePlace<unknown>, boolean][] = [
		['Maya’s topics', (inspect) => inspect.topics(MAYA.id), true],
		['the marker of Maya’s archived message', (inspect) => inspect.archive(live).marker(MAYAS_FIRST), false],
		['the channel archive’s tombstones', (inspect) => inspect.archive(live).tombstones, false],
		['the DM archive’s tombstones', (inspect) => inspect.archive(userScopeKey(MAYA.id, DM_CHANNEL, 'sol')).tombstones, false],
		['the channel’s archive list', (inspect) => inspect.channelArchives(GUILD, CHANNEL), false],
		['the DM’s archive list', (inspect) => inspect.channelArchives(null, DM_CHANNEL), false],
		['the record of a message deleted on Discord', (inspect) => inspect.forgottenMessage(GUILD, CHANNEL, DELETED), false],
		['the channel’s deleted-message list of the layout before', (inspect) => inspect.forgottenList(GUILD, CHANNEL), false],
		['the server’s list of members who left', (inspect) => inspect.leftMembers(GUILD), false],
		['a pending server purge', (inspect) => inspect.pendingPurge(OTHER_GUILD), false],
		['a registry bucket of the layout before sets listing the channel’s archive', (inspect) => inspect.registryBucketOf('archives', live), false],
		['a registry bucket of the layout before sets listing Maya', (inspect) => inspect.registryBucketOf('users', MAYA.id), false],
		['the sweep’s lease', (inspect) => inspect.sweepLease(), false],
		['the encryption check', (inspect) => inspect.encryptionCheck(), false]
	];

	describe.each(DAMAGE)('GIVEN a value that is %s', (damage, text) => {
		it.each(places)('WHEN it is %s THEN every call works for everyone, and Maya can still be erased, whole', async (name, place, mayas) => {
			await converse();
			const damaged = place(under.inspect);
			await damaged.corrupt(text);

			// Everyone is still served: contexts, capture, deletions, status, export, topics, the sweep, the operator's views.
			for (const who of [MAYA, THEO]) {
				await under.engine.buildContext(ask({ userId: who.id, query: 'boat crates MAYA-WORD-0' }));
				await under.engine.buildContext(ask({ userId: who.id, serverId: null, channelId: DM_CHANNEL }));
				await under.engine.status(who.id, { serverId: GUILD, channelId: CHANNEL });
				await under.engine.exportUser(who.id);
				await under.engine.listTopics(who.id);
			}
			clock.advance(60_000);
			const after = snowflake();
			expect(
				(await under.engine.recordTurn({ ...turn({ who: THEO }), history: [said(THEO, 'theo after the damage', clock.current, after)] }))
					.written
			).toBe(true);
			expect((await under.engine.buildContext(ask({ userId: THEO.id, query: 'crates' }))).text).toContain('theo after the damage');
			await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [snowflake()], kind: 'deleted' });
			await under.engine.sweep();
			await under.engine.inventory();
			// A bot starting again on the store opens it.
			const again = await MemoryEngine.open({
				env: {},
				config: { storeUrl: under.storeUrl, storeNamespace: under.namespace, ...backend.config }
			});
			await again.buildContext(ask({ userId: THEO.id }));
			await again.close();

			// Maya is erased, whole: no row holds her words, her replies or her topic, damaged or not.
			await under.engine.clearAll(MAYA.id);
			expect(await rowsHolding(under, 'MAYA-'), `${name}, ${damage}`).toEqual([]);
			expect(await under.engine.exportUser(MAYA.id)).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [], topics: [] });
			if (mayas) expect(damaged.rowIn(await under.inspect.rows()), `${name}, ${damage}`).toBeUndefined();
			// Theo is still remembered.
			expect((await under.engine.buildContext(ask({ userId: THEO.id, query: 'crates' }))).text).toContain('theo after the damage');
		});
	});
});
