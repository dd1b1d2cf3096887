import { describe, expect, it } from 'vitest';
import { MemoryError } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, CHANNEL, GUILD, MAYA, OTHER_GUILD, said, snowflake, THEO, turn } from '../support/turns';

/** What a call rejected with, or null when it resolved. */
async function rejection(call: Promise<unknown>): Promise<MemoryError | null> {
	try {
		await call;
		return null;
	} catch (error) {
		return error as MemoryError;
	}
}

/** Keys cannot collide, whatever the ids: ids that would make one scope's keys another's are refused, and a channel id names one channel. */
describe.each(backends)('key collisions, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);

	it.each(['head', 'chunk', 'seen', 'tombstones'])(
		'WHEN a persona is named %j (a word that ends archive keys) THEN every call naming it is refused with INVALID_INPUT and nothing is written',
		async (personaId) => {
			const rowsBefore = await under.inspect.rows();
			const calls = [
				under.engine.recordTurn(turn({ personaId, text: 'persona-word turn' })),
				under.engine.buildContext(ask({ personaId })),
				under.engine.status(MAYA.id, { serverId: GUILD, channelId: CHANNEL, personaId }),
				under.engine.updateShortTermMemory({ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId }, 'a summary')
			];
			for (const call of calls) {
				const error = await rejection(call);
				expect(error?.code).toBe('INVALID_INPUT');
				expect(error?.message).toContain(personaId);
			}
			expect(await under.inspect.rows()).toEqual(rowsBefore);
			expect(await under.inspect.keysHolding('persona-word turn')).toEqual([]);
		}
	);

	it('WHEN a persona is named like an archive word in another case THEN it is an ordinary persona (keys are case-sensitive)', async () => {
		await under.engine.recordTurn(turn({ personaId: 'Seen', text: 'capital persona' }));
		expect((await under.engine.buildContext(ask({ personaId: 'Seen' }))).text).toContain('capital persona');
	});

	it('WHEN a server id is "DM" THEN turns, contexts, settings, purges and message changes naming it are refused', async () => {
		const calls = [
			under.engine.recordTurn(turn({ serverId: 'DM' })),
			under.engine.buildContext(ask({ serverId: 'DM' })),
			under.engine.setServerSettings('DM', { privateChannelIds: [] }),
			under.engine.getServerSettings('DM'),
			under.engine.wipeChannel('DM', CHANNEL),
			under.engine.purgeServer('DM'),
			under.engine.serverRemoved('DM'),
			under.engine.messagesChanged({ serverId: 'DM', channelId: CHANNEL, messageIds: ['1'], kind: 'deleted' })
		];
		for (const call of calls) {
			const error = await rejection(call);
			expect(error?.code).toBe('INVALID_INPUT');
			expect(error?.message).toMatch(/direct messages/);
		}
	});

	it('WHEN a DM channel has the id of a guild channel she talked in THEN the DM turn is refused and neither shows in the other', async () => {
		await under.engine.recordTurn(turn({ text: 'GUILD-ONLY plan for the raid', timestamp: clock.current }));
		clock.advance(60_000);
		const dm = await rejection(under.engine.recordTurn(turn({ serverId: null, text: 'DM-ONLY secret', timestamp: clock.current })));
		expect(dm?.code).toBe('INVALID_INPUT');
		expect(dm?.message).toContain(`stored as a channel of server ${GUILD}`);
		expect(await under.inspect.keysHolding('DM-ONLY')).toEqual([]);

		// The member's scope of the channel holds the guild's conversation: a DM context never shows it.
		const inDm = await under.engine.buildContext(ask({ serverId: null, query: 'plan raid' }));
		expect(inDm.text).not.toContain('GUILD-ONLY');
		const status = await under.engine.status(MAYA.id, { serverId: null, channelId: CHANNEL });
		expect(status.current).toBeUndefined();
		// The tool's summary names the DM too: refused, and the guild's entry is left as it was.
		const summary = await rejection(
			under.engine.updateShortTermMemory({ userId: MAYA.id, serverId: null, channelId: CHANNEL, personaId: 'sol' }, 'DM-ONLY')
		);
		expect(summary?.code).toBe('INVALID_INPUT');
		expect((await under.inspect.userEntry(MAYA.id, CHANNEL, 'sol').read())?.serverId).toBe(GUILD);
		expect((await under.engine.buildContext(ask({ query: 'plan raid' }))).text).toContain('GUILD-ONLY');
	});

	it('WHEN a guild channel has the id of a DM channel she talked in THEN the guild turn is refused and the DM keeps its memory', async () => {
		await under.engine.recordTurn(turn({ serverId: null, text: 'DM-ONLY secret about my health', timestamp: clock.current }));
		clock.advance(60_000);
		// Another member's turn writes only the channel's server scope and their own scope: Maya's DM is not touched.
		await under.engine.recordTurn(turn({ who: THEO, text: 'theo in the guild channel', timestamp: clock.current }));
		const guild = await rejection(under.engine.recordTurn(turn({ text: 'GUILD-ONLY chatter', timestamp: clock.current })));
		expect(guild?.code).toBe('INVALID_INPUT');
		expect(guild?.message).toContain('stored as a channel of a DM');

		const inDm = await under.engine.buildContext(ask({ serverId: null, query: 'health' }));
		expect(inDm.text).toContain('DM-ONLY secret');
		expect(inDm.text).not.toContain('theo in the guild');
		const inGuild = await under.engine.buildContext(ask({ userId: THEO.id, query: 'health secret' }));
		expect(inGuild.text).not.toContain('DM-ONLY');
		expect((await under.inspect.userEntry(MAYA.id, CHANNEL, 'sol').read())?.serverId).toBe('DM');
	});

	it('WHEN two guilds have a channel of the same id THEN her turn in the second is refused and nothing of the first reaches it', async () => {
		await under.engine.recordTurn(turn({ text: 'FIRST-GUILD roadmap', timestamp: clock.current }));
		clock.advance(60_000);
		const second = await rejection(
			under.engine.recordTurn(turn({ serverId: OTHER_GUILD, text: 'SECOND-GUILD gossip', timestamp: clock.current }))
		);
		expect(second?.code).toBe('INVALID_INPUT');
		const inSecond = await under.engine.buildContext(ask({ serverId: OTHER_GUILD, query: 'roadmap' }));
		expect(inSecond.text).not.toContain('FIRST-GUILD');
		expect(await under.inspect.keysHolding('SECOND-GUILD')).toEqual([]);
	});

	it('WHEN the conflicting entry has expired THEN the channel can be used again, and the old DM memory never shows in the guild', async () => {
		await under.engine.recordTurn(turn({ serverId: null, text: 'DM-ONLY old note', timestamp: clock.current }));
		clock.advance(13 * 3_600_000);
		const history = [said(MAYA, 'GUILD-NOW hello', clock.current, snowflake())];
		const result = await under.engine.recordTurn(turn({ history, timestamp: clock.current }));
		expect(result.written).toBe(true);
		const inGuild = await under.engine.buildContext(ask({ query: 'old note' }));
		expect(inGuild.text).toContain('GUILD-NOW');
		expect(inGuild.text).not.toContain('DM-ONLY');
		// And the DM, asked again, does not read the guild's conversation as its own.
		const inDm = await under.engine.buildContext(ask({ serverId: null, query: 'hello' }));
		expect(inDm.text).not.toContain('GUILD-NOW');
	});
});
