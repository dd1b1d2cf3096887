/**
 * `forgetMessage` (the Forget this message command): a member's own message, a persona's reply to them, or, for a
 * moderator, anyone's leaves every copy and is never captured again, as a deletion on Discord; anyone else's is refused
 * and nothing changes. Looked for in the raw store, not only through the API.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest, logEmptied } from '../support/engine';
import { holdersOf } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, said, snowflake, THEO, turn } from '../support/turns';

/** A street address sent by Maya: no other text of these tests holds it. */
const ADDRESS = '17 Rua das Gaivotas';

describe.each(backends)('forgetMessage, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 4 });
	const engine = (): MemoryEngine => under.engine;

	/** Maya sends her address, Sol's reply repeats it, then Theo and Nova talk on: it is in the digest and the archive. */
	async function addressThenChatter(): Promise<{ addressId: string; replyId: string }> {
		const addressId = snowflake();
		const replyId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA }),
			history: [said(MAYA, `I live at ${ADDRESS}, come by on Sunday`, clock.current, addressId)],
			responses: [{ text: `Got it, Maya. Sunday at Gaivotas then.`, personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		for (let index = 0; index < 8; index++) {
			clock.advance(60_000);
			await engine().recordTurn(turn({ who: index % 2 === 0 ? THEO : NOVA, text: `Rehearsal ${index} moved to hall ${index + 2}.` }));
		}
		return { addressId, replyId };
	}

	const where = { serverId: GUILD, channelId: CHANNEL };

	it('WHEN Maya forgets her own message THEN it leaves every copy and the raw store, and a later turn carrying it stores nothing', async () => {
		const { addressId } = await addressThenChatter();
		expect(await holdersOf(under, 'Gaivotas')).not.toEqual([]);
		const result = await engine().forgetMessage({ ...where, messageId: addressId, userId: MAYA.id });
		expect(result.outcome).toBe('forgotten');
		expect(result.writtenBy).toBe('member');
		// Her message, and Sol's reply to it.
		expect(result.changes.archivedMessagesRemoved).toBe(2);
		for (const who of [MAYA, THEO])
			expect((await engine().buildContext(ask({ userId: who.id, query: 'Maya address Gaivotas Sunday' }))).text).not.toContain('Gaivotas');
		clock.advance(60_000);
		await engine().recordTurn({
			...turn({ who: MAYA, text: 'see you then' }),
			history: [
				said(MAYA, `I live at ${ADDRESS}, come by on Sunday`, clock.current - 5_000, addressId),
				said(MAYA, 'see you then', clock.current)
			]
		});
		await logEmptied(engine());
		expect(await holdersOf(under, 'Gaivotas')).toEqual([]);
		expect(await holdersOf(under, 'Rehearsal 7')).not.toEqual([]);
	});

	it('WHEN Theo asks to forget Maya’s message THEN he is refused and nothing changes; as a moderator he may', async () => {
		const { addressId } = await addressThenChatter();
		const refused = await engine().forgetMessage({ ...where, messageId: addressId, userId: THEO.id, authorId: MAYA.id });
		expect(refused).toMatchObject({ outcome: 'not-yours', writtenBy: 'member', changes: { archivedMessagesRemoved: 0, entriesChanged: 0 } });
		expect(await holdersOf(under, ADDRESS)).not.toEqual([]);
		// Claiming to be its author changes nothing: memory knows who wrote it.
		const claimed = await engine().forgetMessage({ ...where, messageId: addressId, userId: THEO.id, authorId: THEO.id });
		expect(claimed.outcome).toBe('not-yours');
		const moderated = await engine().forgetMessage({ ...where, messageId: addressId, userId: THEO.id, moderator: true });
		expect(moderated.outcome).toBe('forgotten');
		await logEmptied(engine());
		expect(await holdersOf(under, ADDRESS)).toEqual([]);
	});

	it('WHEN the message has left every window THEN it is found in the archive: Theo is refused, Maya forgets it', async () => {
		const { addressId } = await addressThenChatter();
		for (let index = 0; index < 6; index++) {
			clock.advance(60_000);
			await engine().recordTurn(turn({ who: MAYA, text: `Costume fitting ${index} on Thursday.` }));
		}
		expect((await engine().forgetMessage({ ...where, messageId: addressId, userId: THEO.id, authorId: MAYA.id })).outcome).toBe('not-yours');
		expect(await engine().forgetMessage({ ...where, messageId: addressId, userId: MAYA.id })).toMatchObject({
			outcome: 'forgotten',
			writtenBy: 'member'
		});
		await logEmptied(engine());
		expect(await holdersOf(under, ADDRESS)).toEqual([]);
	});

	it('WHEN Maya forgets Sol’s reply to her THEN the reply goes and her message stays; Theo may not forget that reply', async () => {
		const { replyId } = await addressThenChatter();
		expect((await engine().forgetMessage({ ...where, messageId: replyId, userId: THEO.id })).outcome).toBe('not-yours');
		const result = await engine().forgetMessage({ ...where, messageId: replyId, userId: MAYA.id });
		expect(result).toMatchObject({ outcome: 'forgotten', writtenBy: 'persona' });
		await logEmptied(engine());
		expect(await holdersOf(under, 'Sunday at Gaivotas')).toEqual([]);
		expect(await holdersOf(under, ADDRESS)).not.toEqual([]);
	});

	it('WHEN the message is not stored THEN its author may still have it never captured; anyone else is told it is not stored', async () => {
		const unseen = snowflake();
		expect((await engine().forgetMessage({ ...where, messageId: unseen, userId: MAYA.id })).outcome).toBe('not-stored');
		expect((await engine().forgetMessage({ ...where, messageId: unseen, userId: MAYA.id, authorId: THEO.id })).outcome).toBe('not-stored');
		expect((await engine().forgetMessage({ ...where, messageId: unseen, userId: MAYA.id, authorId: MAYA.id })).outcome).toBe('forgotten');
		await engine().recordTurn({ ...turn({ who: MAYA }), history: [said(MAYA, `my locker code is 4471 ${ADDRESS}`, clock.current, unseen)] });
		await logEmptied(engine());
		expect(await holdersOf(under, '4471')).toEqual([]);
	});

	it('WHEN Maya forgets a message of her DM with the persona THEN it goes, whoever wrote it', async () => {
		const replyId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'remind me of the dentist on Friday' }),
			responses: [{ text: 'I will remind you of the dentist, Friday at nine.', personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		const result = await engine().forgetMessage({ serverId: null, channelId: DM_CHANNEL, messageId: replyId, userId: MAYA.id });
		expect(result).toMatchObject({ outcome: 'forgotten', writtenBy: 'persona' });
		await logEmptied(engine());
		expect(await holdersOf(under, 'Friday at nine')).toEqual([]);
		expect(await holdersOf(under, 'dentist on Friday')).not.toEqual([]);
	});

	it('WHEN Theo names Maya’s DM channel THEN he may forget nothing of it: the channel is no proof that it is his', async () => {
		const messageId = snowflake();
		const replyId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL }),
			history: [said(MAYA, 'my passport number is X7781', clock.current, messageId)],
			responses: [{ text: 'Passport X7781, noted.', personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		for (const id of [messageId, replyId])
			for (const moderator of [false, true]) {
				// A DM has no moderator.
				const result = await engine().forgetMessage({ serverId: null, channelId: DM_CHANNEL, messageId: id, userId: THEO.id, moderator });
				expect(result.outcome).toBe('not-yours');
			}
		expect(await holdersOf(under, 'X7781')).not.toEqual([]);
	});

	it('WHEN the request is malformed THEN it is refused with INVALID_INPUT and nothing is forgotten', async () => {
		const { addressId } = await addressThenChatter();
		await expect(engine().forgetMessage({ ...where, messageId: addressId, userId: 'not an id' })).rejects.toMatchObject({
			code: 'INVALID_INPUT'
		});
		await expect(engine().forgetMessage({ ...where, messageId: '', userId: MAYA.id })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		expect(await holdersOf(under, ADDRESS)).not.toEqual([]);
	});
});
