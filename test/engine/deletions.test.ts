import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine, MemoryTurn } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest, logEmptied } from '../support/engine';
import { holdersOf } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, said, snowflake, THEO, turn } from '../support/turns';

/** A phone number sent by mistake: no other text of these tests holds it. */
const PHONE = '+351 912 770 4431';

describe.each(backends)('messages deleted or edited on Discord, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 4 });
	const engine = (): MemoryEngine => under.engine;

	/** Maya sends her number; Sol's reply repeats it; then Theo and Nova talk on, so it leaves the window for the digest and the archive. */
	async function numberThenChatter(): Promise<{ numberId: string; history: MemoryTurn['history'] }> {
		const numberId = snowflake();
		const first = said(MAYA, `my number is ${PHONE}, call me after six`, clock.current, numberId);
		await engine().recordTurn({
			...turn({ who: MAYA }),
			history: [first],
			responses: [{ text: `Noted, Maya: ${PHONE}.`, personaId: 'sol', personaName: 'Sol', messageId: snowflake() }]
		});
		for (let index = 0; index < 10; index++) {
			clock.advance(60_000);
			const who = index % 2 === 0 ? THEO : NOVA;
			await engine().recordTurn(
				turn({ who, text: `Shipment ${index}: 4${index} crates to Porto on June ${index + 1}.`, reply: `Logged shipment ${index}.` })
			);
		}
		return { numberId, history: [first] };
	}

	it('WHEN a message is deleted THEN no copy is left: contexts, exports, the raw store, and the persona reply that repeated it', async () => {
		const { numberId } = await numberThenChatter();
		// Before: the number is in the digest, the archive, Sol's reply, and Theo's context finds it.
		expect((await engine().buildContext(ask({ userId: THEO.id, query: `Maya number ${PHONE}` }))).text).toContain(PHONE);
		const result = await engine().messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [numberId], kind: 'deleted' });
		// Maya's message and Sol's reply, in the channel's archive.
		expect(result.archivedMessagesRemoved).toBe(2);
		expect(result.digestLinesRemoved).toBeGreaterThanOrEqual(1);

		for (const who of [THEO, NOVA, MAYA]) {
			const context = await engine().buildContext(ask({ userId: who.id, query: `Maya number ${PHONE} call after six` }));
			expect(context.text, `${who.name}'s context`).not.toContain('912 770');
			expect(context.text).toContain('Shipment 9');
		}
		expect(JSON.stringify(await engine().exportUser(MAYA.id))).not.toContain('912 770');
		await logEmptied(engine());
		expect(await holdersOf(under, '912 770')).toEqual([]);
	});

	it('WHEN a message is deleted and nothing waits for the files THEN within a second and a half no file holds it', async () => {
		const { numberId } = await numberThenChatter();
		await engine().messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [numberId], kind: 'deleted' });
		// The log's emptying follows within a second of the deletion, on its own (the file's rewrite within a minute).
		await sleep(1_500);
		expect(await holdersOf(under, '912 770')).toEqual([]);
	});

	it('WHEN a later turn still carries a deleted message THEN it is not captured again, in any copy', async () => {
		const { numberId, history } = await numberThenChatter();
		await engine().messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [numberId], kind: 'deleted' });
		clock.advance(60_000);
		// The host's cache still holds the message and passes it as history, with a new message of Maya's.
		await engine().recordTurn({
			...turn({ who: MAYA, text: 'did you get it?' }),
			history: [...history, said(MAYA, 'did you get it?', clock.current)]
		});
		const context = await engine().buildContext(ask({ userId: THEO.id, query: PHONE }));
		expect(context.text).toContain('did you get it?');
		expect(context.text).not.toContain('912 770');
		await logEmptied(engine());
		expect(await holdersOf(under, '912 770')).toEqual([]);
	});

	it('WHEN messages are deleted in bulk THEN each leaves every copy', async () => {
		const ids = [snowflake(), snowflake()];
		await engine().recordTurn({ ...turn({ who: MAYA }), history: [said(MAYA, 'the vault code is 7730-KESTREL', clock.current, ids[0])] });
		clock.advance(60_000);
		await engine().recordTurn({ ...turn({ who: THEO }), history: [said(THEO, 'and the spare key is under PLANTPOT-9', clock.current, ids[1])] });
		await engine().messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: ids, kind: 'deleted' });
		const context = await engine().buildContext(ask({ userId: NOVA.id, query: 'vault code spare key' }));
		expect(context.text).not.toMatch(/KESTREL|PLANTPOT/);
		await logEmptied(engine());
		expect(await holdersOf(under, 'KESTREL')).toEqual([]);
		expect(await holdersOf(under, 'PLANTPOT')).toEqual([]);
	});

	it('WHEN a message is edited THEN only its new text is kept, in the window, the digest and the archive', async () => {
		const editedId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA, reply: 'Sounds good.' }),
			history: [said(MAYA, 'we meet at LUIGIS on Friday', clock.current, editedId)]
		});
		const result = await engine().messagesChanged({
			serverId: GUILD,
			channelId: CHANNEL,
			messageIds: [editedId],
			kind: 'edited',
			texts: { [editedId]: 'we meet at MARIOS on Friday' }
		});
		expect(result).toMatchObject({ messagesEdited: 2, archivedMessagesEdited: 1, messagesRemoved: 0 });
		for (let index = 0; index < 6; index++) {
			clock.advance(60_000);
			await engine().recordTurn(
				turn({ who: THEO, text: `Shipment ${index}: 4${index} crates on June ${index + 1}.`, reply: `Logged ${index}.` })
			);
		}
		const context = await engine().buildContext(ask({ userId: THEO.id, query: 'where do we meet on Friday' }));
		expect(context.text).toContain('MARIOS');
		expect(context.text).not.toContain('LUIGIS');
		await logEmptied(engine());
		expect(await holdersOf(under, 'LUIGIS')).toEqual([]);
	});

	it('WHEN an edit comes without its new text THEN the old text leaves every copy, and the next turn carrying it stores the new one', async () => {
		const editedId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA, reply: 'Sure.' }),
			history: [said(MAYA, 'the password is HUNTER-TWO', clock.current, editedId)]
		});
		await engine().messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [editedId], kind: 'edited' });
		await logEmptied(engine());
		expect(await holdersOf(under, 'HUNTER-TWO')).toEqual([]);
		clock.advance(60_000);
		await engine().recordTurn({
			...turn({ who: MAYA }),
			history: [said(MAYA, 'the password is (redacted)', clock.current, editedId), said(MAYA, 'thanks', clock.current)]
		});
		const context = await engine().buildContext(ask({ userId: THEO.id, query: 'password' }));
		expect(context.text).toContain('the password is (redacted)');
	});

	it('WHEN a DM message is deleted and the change names no member THEN the DM is found through its channel', async () => {
		const deletedId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL }),
			history: [said(MAYA, 'my locker is LOCKER-5521', clock.current, deletedId)]
		});
		const result = await engine().messagesChanged({ serverId: null, channelId: DM_CHANNEL, messageIds: [deletedId], kind: 'deleted' });
		expect(result.messagesRemoved).toBeGreaterThanOrEqual(1);
		const context = await engine().buildContext(ask({ serverId: null, channelId: DM_CHANNEL, query: 'locker' }));
		expect(context.text).not.toContain('LOCKER-5521');
		await logEmptied(engine());
		expect(await holdersOf(under, 'LOCKER-5521')).toEqual([]);
	});

	it('WHEN a message the memory never held is deleted THEN nothing changes and the archive is not read', async () => {
		await numberThenChatter();
		const result = await engine().messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [snowflake()], kind: 'deleted' });
		expect(result).toEqual({
			entriesChanged: 0,
			messagesRemoved: 0,
			messagesEdited: 0,
			archivedMessagesRemoved: 0,
			archivedMessagesEdited: 0,
			digestLinesRemoved: 0,
			summariesDropped: 0
		});
		expect((await engine().buildContext(ask({ userId: THEO.id, query: PHONE }))).text).toContain(PHONE);
	});
});
