/**
 * A message deleted on Discord is kept out of memory by a record of its own (`gone:<tag>:<id>`, until when) and its id in
 * the channel's set: capture reads the records of the ids its turn carries, not a list of everything the channel lost, so
 * a turn costs the same in a channel where moderation deleted thousands; the sweep moves a list of the layout before into
 * records, expires records past their time, and a server's purge deletes them.
 */
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { MemoryEngine, PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, CHANNEL, GUILD, MAYA, OTHER_CHANNEL, said, snowflake, THEO, turn } from '../support/turns';

const DAY = 86_400_000;

/** A Map that adds up the characters of every value the engine reads through Keyv. */
class ReadMeasuringMap extends Map<string, unknown> {
	public charsRead = 0;

	public override get(key: string) {
		const value = super.get(key);
		if (typeof value === 'string') this.charsRead += value.length;
		return value;
	}
}

/** The keys of the store's rows (without their namespace) that are forgotten messages' records or sets. */
const forgottenRows = (rows: readonly string[]) => rows.map((row) => row.split(' ')[0]!).filter((key) => /(^|:)(gone|forgotten-ids):/.test(key));

describe('GIVEN a channel where 2,000 messages were deleted on Discord, and one where none was', () => {
	it('WHEN a member talks in each THEN a turn reads as much in both, and a deleted message its history carries is left out', async () => {
		const map = new ReadMeasuringMap();
		const clock = new TestClock();
		const engine = await MemoryEngine.open({ keyv: new Keyv({ store: map }), env: {}, config: { sweepIntervalMinutes: 0 }, now: clock.now });
		try {
			const deleted = Array.from({ length: 2_000 }, () => snowflake());
			for (let at = 0; at < deleted.length; at += 500)
				await engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: deleted.slice(at, at + 500), kind: 'deleted' });
			// The same turn in both: a message the busy channel lost (another one in the quiet channel), then Maya's.
			const charsOfTurn = async (channelId: string, spam: string, text: string, at: number) => {
				clock.advance(60_000);
				// The second turn of each channel is measured: the first lists the conversation.
				await engine.recordTurn(turn({ channelId, text: `warm ${at}` }));
				clock.advance(60_000);
				map.charsRead = 0;
				await engine.recordTurn({
					...turn({ channelId }),
					history: [said(THEO, text, clock.current - 10, spam), said(MAYA, `maya asks ${at}`, clock.current - 5)]
				});
				return map.charsRead;
			};
			const busy = await charsOfTurn(CHANNEL, deleted[7]!, 'spam that was deleted', 1);
			const quiet = await charsOfTurn(OTHER_CHANNEL, snowflake(), 'spam that was not deleted', 2);
			// A list of 2,000 ids would be some 70,000 characters.
			expect(Math.abs(busy - quiet), `${busy} against ${quiet} characters`).toBeLessThan(2_000);
			expect((await engine.buildContext(ask({ query: 'spam deleted' }))).text).not.toContain('spam that was deleted');
			expect((await engine.buildContext(ask({ channelId: OTHER_CHANNEL, query: 'spam deleted' }))).text).toContain('spam that was not deleted');
		} finally {
			await engine.close();
		}
	});
});

describe.each(backends)('messages deleted on Discord, one record each, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { archiveRetentionDays: 2, serverPurgeGraceHours: 0 });

	/** A turn of Maya's whose history carries `text` as Theo's message `id`. */
	const carrying = (id: string, text: string) => {
		clock.advance(60_000);
		return { ...turn({ text: 'maya again' }), history: [said(THEO, text, clock.current - 10, id), said(MAYA, 'maya again', clock.current - 5)] };
	};

	it('WHEN a channel has a list of the layout before THEN its ids stay out; the sweep moves them into records, dropping the expired', async () => {
		// A deletion registers the channel, as the list's own first write did.
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [snowflake()], kind: 'deleted' });
		const kept = snowflake();
		const expired = snowflake();
		const until = clock.current + DAY;
		await under.inspect.forgottenList(GUILD, CHANNEL).write({ [kept]: until, [expired]: clock.current - 1 });

		await under.engine.recordTurn(carrying(kept, 'KEPT-OUT-before the sweep'));
		const swept = await under.engine.sweep();
		expect(swept.forgottenIdsDeleted).toBe(1);
		expect(await under.inspect.forgottenList(GUILD, CHANNEL).read()).toBeUndefined();
		expect(await under.inspect.forgottenMessage(GUILD, CHANNEL, kept).read()).toBe(until);
		expect(await under.inspect.forgottenMessage(GUILD, CHANNEL, expired).read()).toBeUndefined();
		await under.engine.recordTurn(carrying(kept, 'KEPT-OUT-after the sweep'));
		expect(await under.inspect.rowsHolding('KEPT-OUT')).toEqual([]);
	});

	it('WHEN the time of a deleted message’s record is past THEN the sweep deletes it and its id, and the channel leaves the registry', async () => {
		const id = snowflake();
		await under.engine.recordTurn(carrying(id, 'typo soon deleted'));
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [id], kind: 'deleted' });
		expect(forgottenRows(await under.inspect.rows())).toHaveLength(2);
		expect(await under.inspect.registered('forgotten')).toEqual([`${GUILD}:${CHANNEL}`]);

		clock.advance(DAY);
		expect((await under.engine.sweep()).forgottenIdsDeleted).toBe(0);
		await under.engine.recordTurn(carrying(id, 'typo soon deleted'));
		expect(await under.inspect.rowsHolding('typo soon deleted')).toEqual([]);

		clock.advance(2 * DAY);
		expect((await under.engine.sweep()).forgottenIdsDeleted).toBe(1);
		expect(forgottenRows(await under.inspect.rows())).toEqual([]);
		expect(await under.inspect.registered('forgotten')).toEqual([]);
	});

	it('WHEN the bot is removed from the server THEN its channels’ deleted-message records and sets go with it', async () => {
		const ids = Array.from({ length: 30 }, () => snowflake());
		await under.engine.recordTurn(turn({ text: 'hello' }));
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: ids.slice(0, 20), kind: 'deleted' });
		await under.engine.messagesChanged({ serverId: GUILD, channelId: OTHER_CHANNEL, messageIds: ids.slice(20), kind: 'deleted' });
		expect(forgottenRows(await under.inspect.rows())).toHaveLength(32);
		await under.engine.serverRemoved(GUILD);
		expect(forgottenRows(await under.inspect.rows())).toEqual([]);
	});

	it('WHEN a FULL member’s reply that had no host id comes back in a later history THEN it is left out by its text', async () => {
		await under.engine.setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.FULL });
		const reply = 'FULL-REPLY-words only for Maya';
		await under.engine.recordTurn({ ...turn({ text: 'maya, full' }), responses: [{ text: reply, personaId: 'sol', personaName: 'Sol' }] });
		clock.advance(60_000);
		// Theo's turn carries Sol's reply to Maya as the host saw it: a persona message with no id.
		await under.engine.recordTurn({
			...turn({ who: THEO, text: 'theo here' }),
			history: [{ authorId: 'sol', authorName: 'Sol', role: 'persona', text: reply, timestamp: clock.current - 10 }, said(THEO, 'theo here')]
		});
		expect(await under.inspect.rowsHolding('FULL-REPLY')).toEqual([]);
		expect(await under.inspect.rowsHolding('theo here')).not.toEqual([]);
	});

	it('WHEN a message whose reply had no host id is deleted THEN the reply’s copy a later history carried goes too', async () => {
		const mine = said(MAYA, 'HOSTLESS-SOURCE my locker code is 4471', clock.current - 5);
		const reply = 'Got it: your locker code is 4471 (HOSTLESS-REPLY)';
		await under.engine.recordTurn({ ...turn(), history: [mine], responses: [{ text: reply, personaId: 'sol', personaName: 'Sol' }] });
		clock.advance(60_000);
		// Theo's turn carries Sol's reply as the host saw it: a persona message with no id.
		await under.engine.recordTurn({
			...turn({ who: THEO, text: 'theo here' }),
			history: [{ authorId: 'sol', authorName: 'Sol', role: 'persona', text: reply, timestamp: clock.current - 10 }, said(THEO, 'theo here')]
		});
		expect(await under.inspect.rowsHolding('HOSTLESS-REPLY')).not.toEqual([]);
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [mine.messageId!], kind: 'deleted' });
		expect(await under.inspect.rowsHolding('HOSTLESS-SOURCE')).toEqual([]);
		expect(await under.inspect.rowsHolding('HOSTLESS-REPLY')).toEqual([]);
		expect(await under.inspect.rowsHolding('theo here')).not.toEqual([]);
	});

	it('WHEN a deleted message’s record cannot be read THEN the message stays out of memory', async () => {
		const id = snowflake();
		await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [id], kind: 'deleted' });
		await under.inspect.forgottenMessage(GUILD, CHANNEL, id).corrupt('{"value":{"v":1,"d":"DAMAGED"}}');
		await under.engine.recordTurn(carrying(id, 'DAMAGED-RECORD-words'));
		expect(await under.inspect.rowsHolding('DAMAGED-RECORD-words')).toEqual([]);
	});
});
