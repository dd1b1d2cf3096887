import { describe, expect, it } from 'vitest';
import { PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { rowsHolding, serverScopeKey, type StoreInspection, type StorePlace, userScopeKey } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, said, THEO, turn } from '../support/turns';

/** Rows as a damaged disk, a partial restore or a hand edit leaves them: not JSON, or JSON nested absurdly deep. */
const DAMAGE = [
	['not JSON', '{"value":{"v":1,"d":{"scope":"ser'],
	['nested absurdly deep', `{"value":{"v":1,"d":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`]
] as const;

/**
 * One damaged row of any kind never blocks anyone: every public call still works for every member, the
 * damaged value is read as missing (counted), the next write replaces it, and the member whose words it may
 * hold can still be erased, the row with them.
 */
describe.each(backends)('a damaged row on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 2 });

	/** Maya talks in the guild (her words reach the digest and the archive) and in a DM; Theo talks too. */
	async function converse() {
		await under.engine.updateProfile(MAYA.id, { notes: ['MAYA-NOTE-7 likes tea'] });
		for (let index = 0; index < 3; index++) {
			await under.engine.recordTurn(turn({ who: MAYA, text: `MAYA-WORD-${index} about the boat`, reply: `Noted MAYA-REPLY-${index}.` }));
			clock.advance(60_000);
			await under.engine.recordTurn(turn({ who: THEO, text: `theo speaks of crates ${index}`, reply: `Logged ${index}.` }));
			clock.advance(60_000);
		}
		await under.engine.recordTurn(turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'MAYA-WORD-DM', reply: 'MAYA-REPLY-DM' }));
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: ['999999999999999999'], kind: 'deleted' });
	}

	const places: [string, (inspect: StoreInspection) => StorePlace<unknown>][] = [
		['Maya’s own short-term entry', (inspect) => inspect.entry(userScopeKey(MAYA.id, CHANNEL, 'sol'))],
		['the channel’s shared short-term entry', (inspect) => inspect.entry(serverScopeKey(GUILD, CHANNEL, 'sol'))],
		['Maya’s DM entry', (inspect) => inspect.entry(userScopeKey(MAYA.id, DM_CHANNEL, 'sol'))],
		['the archive’s head', (inspect) => inspect.archive(serverScopeKey(GUILD, CHANNEL, 'sol')).head],
		['an archive chunk', (inspect) => inspect.archive(serverScopeKey(GUILD, CHANNEL, 'sol')).chunk(0)],
		['the DM archive’s head', (inspect) => inspect.archive(userScopeKey(MAYA.id, DM_CHANNEL, 'sol')).head],
		['Maya’s user directory', (inspect) => inspect.userDirectory(MAYA.id)],
		['the server directory', (inspect) => inspect.serverDirectory(GUILD)],
		['the channel directory', (inspect) => inspect.channelDirectory(GUILD, CHANNEL)],
		['Maya’s author index', (inspect) => inspect.authorIndex(MAYA.id)],
		['Theo’s settings', (inspect) => inspect.userSettings(THEO.id)],
		['the server’s settings', (inspect) => inspect.serverSettings(GUILD)],
		['Maya’s profile', (inspect) => inspect.profile(MAYA.id)]
	];

	describe.each(DAMAGE)('GIVEN a row that is %s', (damage, text) => {
		it.each(places)('WHEN it is %s THEN every call works for everyone, and Maya can still be erased, whole', async (name, place) => {
			await converse();
			const damaged = place(under.inspect);
			await damaged.corrupt(text);
			const before = under.engine.stats().damagedValues;

			// Everyone is still served: contexts, capture, status, export, the sweep.
			for (const who of [MAYA, THEO]) {
				await under.engine.buildContext(ask({ userId: who.id, query: 'boat crates' }));
				await under.engine.buildContext(ask({ userId: who.id, serverId: null, channelId: DM_CHANNEL }));
				await under.engine.status(who.id, { serverId: GUILD, channelId: CHANNEL });
				await under.engine.exportUser(who.id);
			}
			clock.advance(60_000);
			expect((await under.engine.recordTurn(turn({ who: THEO, text: 'theo after the damage', timestamp: clock.current }))).written).toBe(true);
			await under.engine.sweep();
			// Counted when read (settings are cached for a few seconds; a chunk nested deep parses, as a list of nothing).
			if (damage === 'not JSON' && !name.includes('settings')) expect(under.engine.stats().damagedValues).toBeGreaterThan(before);

			// Maya is erased, whole: no row holds her words, her replies or her profile, damaged or not.
			await under.engine.clearAll(MAYA.id);
			expect(await rowsHolding(under, 'MAYA-')).toEqual([]);
			expect(await under.engine.exportUser(MAYA.id)).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [], profile: null });
			// Theo is still remembered.
			const theo = await under.engine.buildContext(ask({ userId: THEO.id, query: 'crates' }));
			expect(theo.text).toContain('theo after the damage');
		});
	});

	it('WHEN a damaged value is read again and again THEN it is counted each time, and the next write replaces it', async () => {
		await converse();
		await under.inspect.entry(serverScopeKey(GUILD, CHANNEL, 'sol')).corrupt('{not json');
		await under.engine.buildContext(ask());
		await under.engine.buildContext(ask());
		expect(under.engine.stats().damagedValues).toBeGreaterThanOrEqual(2);
		clock.advance(60_000);
		await under.engine.recordTurn({ ...turn({ who: THEO }), history: [said(THEO, 'a fresh start', clock.current)] });
		expect((await under.inspect.entry(serverScopeKey(GUILD, CHANNEL, 'sol')).read()) as { messages: unknown[] }).toMatchObject({
			messages: expect.arrayContaining([expect.objectContaining({ text: 'a fresh start' })])
		});
	});

	it('WHEN a member’s settings are damaged THEN they read as FULL (nothing of theirs is captured) until they choose again', async () => {
		await under.inspect.userSettings(THEO.id).corrupt('{not json');
		expect((await under.engine.getUserSettings(THEO.id)).privacyLevel).toBe(PrivacyLevel.FULL);
		expect((await under.engine.recordTurn(turn({ who: THEO }))).skippedReason).toBe('privacy-full');
		await under.engine.setUserSettings(THEO.id, { privacyLevel: PrivacyLevel.MINIMAL });
		clock.advance(60_000);
		expect((await under.engine.recordTurn(turn({ who: THEO, timestamp: clock.current }))).written).toBe(true);
	});
});
