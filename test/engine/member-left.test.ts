import { describe, expect, it } from 'vitest';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, OTHER_GUILD, said, snowflake, THEO, turn } from '../support/turns';

/** A member who leaves a server is forgotten there (MEMORY_FORGET_MEMBERS_WHO_LEAVE), and only there. */
describe.each(backends)('a member who leaves a server, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { sweepIntervalMinutes: 0 });

	/** Maya in two guilds and her DM, quoted by Theo in the first guild, with a profile. */
	async function mayaEverywhere() {
		const inGuild = said(MAYA, 'LEFT-G1 my flat is on Rua Augusta', clock.current, snowflake());
		await under.engine.recordTurn(turn({ history: [inGuild], reply: 'LEFT-G1-REPLY Rua Augusta, noted Maya', timestamp: clock.current }));
		clock.advance(60_000);
		await under.engine.recordTurn(
			turn({ who: THEO, history: [inGuild, said(THEO, 'theo stays in the guild', clock.current, snowflake())], timestamp: clock.current })
		);
		clock.advance(60_000);
		await under.engine.recordTurn(
			turn({ serverId: OTHER_GUILD, channelId: OTHER_CHANNEL, text: 'KEPT-G2 hello from the other guild', timestamp: clock.current })
		);
		clock.advance(60_000);
		await under.engine.recordTurn(turn({ serverId: null, channelId: DM_CHANNEL, text: 'KEPT-DM a private note', timestamp: clock.current }));
		await under.engine.updateProfile(MAYA.id, { preferences: { pronouns: 'she/her' } });
		clock.advance(60_000);
		return inGuild;
	}

	it('WHEN she leaves the first guild THEN nothing of hers there is in any row, and her other guild, DM and profile stay', async () => {
		await mayaEverywhere();
		const erased = await under.engine.memberLeft(GUILD, MAYA.id);
		expect(erased?.entriesDeleted).toBeGreaterThanOrEqual(1);
		expect(await under.inspect.keysHolding('LEFT-G1')).toEqual([]);
		expect(await under.inspect.keysHolding('KEPT-G2')).not.toEqual([]);
		expect(await under.inspect.keysHolding('KEPT-DM')).not.toEqual([]);
		expect(await under.engine.getProfile(MAYA.id)).toMatchObject({ preferences: { pronouns: 'she/her' } });

		const theo = await under.engine.buildContext(ask({ userId: THEO.id, query: 'flat Rua Augusta' }));
		expect(theo.text).toContain('theo stays in the guild');
		expect(theo.text).not.toContain('LEFT-G1');
		const exported = JSON.stringify(await under.engine.exportUser(MAYA.id));
		expect(exported).not.toContain('LEFT-G1');
		expect(exported).toContain('KEPT-G2');
		expect(exported).toContain('KEPT-DM');
	});

	it('WHEN a later history there carries her old message THEN it is not stored again; once she is back, her new words are', async () => {
		const old = await mayaEverywhere();
		await under.engine.memberLeft(GUILD, MAYA.id);
		clock.advance(60_000);
		await under.engine.recordTurn(
			turn({ who: THEO, history: [old, said(THEO, 'theo again', clock.current, snowflake())], timestamp: clock.current })
		);
		expect(await under.inspect.keysHolding('LEFT-G1')).toEqual([]);
		// The same old message in her other guild's history (a crosspost) is not hers to lose there.
		clock.advance(60_000);
		const back = said(MAYA, 'BACK-AGAIN I rejoined', clock.current, snowflake());
		await under.engine.recordTurn(turn({ history: [old, back], timestamp: clock.current }));
		const context = await under.engine.buildContext(ask({ userId: NOVA.id, query: 'rejoined flat' }));
		expect(context.text).toContain('BACK-AGAIN');
		expect(context.text).not.toContain('LEFT-G1');
	});

	it('WHEN the bot is later removed from that guild THEN no row names it, not even her settings, and her barrier there goes', async () => {
		await mayaEverywhere();
		await under.engine.memberLeft(GUILD, MAYA.id);
		expect(await under.inspect.keysHolding(GUILD)).not.toEqual([]);
		await under.engine.purgeServer(GUILD);
		expect(await under.inspect.keysHolding(GUILD)).toEqual([]);
		expect(await under.inspect.userSettings(MAYA.id).read()).not.toHaveProperty(['leftServers', GUILD]);
		expect(await under.inspect.keysHolding('KEPT-G2')).not.toEqual([]);
	});

	it('WHEN a member memory holds nothing of leaves THEN nothing is written about them', async () => {
		await mayaEverywhere();
		const rows = await under.inspect.rows();
		expect(await under.engine.memberLeft(GUILD, NOVA.id)).toBeNull();
		expect(await under.inspect.rows()).toEqual(rows);
		expect(await under.inspect.keysHolding(NOVA.id)).toEqual([]);
	});

	it('WHEN she leaves the second guild too THEN only her DM and profile are left', async () => {
		await mayaEverywhere();
		await under.engine.memberLeft(GUILD, MAYA.id);
		await under.engine.memberLeft(OTHER_GUILD, MAYA.id);
		expect(await under.inspect.keysHolding('KEPT-G2')).toEqual([]);
		expect(await under.inspect.keysHolding('KEPT-DM')).not.toEqual([]);
		const status = await under.engine.status(MAYA.id);
		expect(status.shortTermEntries).toBe(1);
		expect(status.hasProfile).toBe(true);
	});
});
