import { describe, expect, it } from 'vitest';
import { PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { holdersOf } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, OTHER_GUILD, said, THEO, turn } from '../support/turns';

/**
 * A persona's reply often repeats what it answers ("Maya, you told me your dog is Biscuit"): erasing a
 * member takes the replies to the turns they triggered with their own words, on every backend, in every
 * row and (on SQLite) every byte of the files.
 */
describe.each(backends)('erasure of the replies to a member’s turns, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 4 });

	async function mayaAndTheoTalk() {
		await under.engine.recordTurn(turn({ who: MAYA, text: 'my dog is called Biscuit', reply: 'Maya, you told me your dog is BISCUIT-DOG.' }));
		clock.advance(60_000);
		await under.engine.recordTurn(turn({ who: THEO, text: 'my cat is called Pixel', reply: 'Theo, your cat is PIXEL-CAT.' }));
		await under.engine.recordTurn(
			turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'a secret for the DM', reply: 'Your DM-SECRET is safe.' })
		);
		for (let index = 0; index < 6; index++) {
			clock.advance(60_000);
			await under.engine.recordTurn(
				turn({ who: THEO, text: `Shipment ${index}: 4${index} crates on June ${index + 1}.`, reply: `Logged ${index}.` })
			);
		}
	}

	it('WHEN a member clears everything THEN the replies to her turns go too, from every row and file; Theo’s stay', async () => {
		await mayaAndTheoTalk();
		expect(await holdersOf(under, 'BISCUIT-DOG')).not.toEqual([]);
		const exported = JSON.stringify(await under.engine.exportUser(MAYA.id));
		// Her export before the erasure holds the replies to her, and never Sol's reply to Theo.
		expect(exported).toContain('BISCUIT-DOG');
		expect(exported).toContain('DM-SECRET');
		expect(exported).not.toContain('PIXEL-CAT');

		await under.engine.clearAll(MAYA.id);
		expect(await holdersOf(under, 'BISCUIT-DOG')).toEqual([]);
		expect(await holdersOf(under, 'DM-SECRET')).toEqual([]);
		expect(await holdersOf(under, 'Biscuit')).toEqual([]);
		const theo = await under.engine.buildContext(ask({ userId: THEO.id, query: 'dog Biscuit cat Pixel' }));
		expect(theo.text).not.toContain('BISCUIT');
		expect(theo.text).toContain('PIXEL-CAT');
	});

	it('WHEN a member chooses FULL THEN everything of hers goes, replies included, and nothing is stored after', async () => {
		await mayaAndTheoTalk();
		await under.engine.setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.FULL });
		for (const marker of ['BISCUIT-DOG', 'Biscuit', 'DM-SECRET']) expect(await holdersOf(under, marker), marker).toEqual([]);
		expect(await under.engine.exportUser(MAYA.id)).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [] });
		const after = await under.engine.recordTurn(turn({ who: MAYA, text: 'still here: AFTER-FULL', reply: 'Hello.' }));
		expect(after.skippedReason).toBe('privacy-full');
		expect(await holdersOf(under, 'AFTER-FULL')).toEqual([]);
		expect(await holdersOf(under, 'PIXEL-CAT')).not.toEqual([]);
	});

	it('WHEN an opted-in member asks from another server THEN she sees her words and the replies to her, never a reply to Theo', async () => {
		await under.engine.setUserSettings(MAYA.id, { crossServerOptIn: true });
		// In one turn's history: Theo's message and Sol's earlier reply to him, then Maya's.
		await under.engine.recordTurn({
			...turn({ who: MAYA, reply: 'Noted, Maya: TULIP-REPLY.' }),
			history: [said(THEO, 'my locker code is 4417', clock.current - 2000), said(MAYA, 'I plant tulips', clock.current)]
		});
		await under.engine.recordTurn(turn({ who: THEO, text: 'remember my locker', reply: 'Theo, your LOCKER-REPLY is 4417.' }));
		const elsewhere = await under.engine.buildContext(
			ask({ userId: MAYA.id, serverId: OTHER_GUILD, channelId: '810000000000000009', query: 'tulips locker' })
		);
		expect(elsewhere.text).toContain('I plant tulips');
		expect(elsewhere.text).toContain('TULIP-REPLY');
		expect(elsewhere.text).not.toContain('LOCKER-REPLY');
		expect(elsewhere.text).not.toContain('4417');
		// Nor is it in her own conversation's store, or her export.
		expect(JSON.stringify(await under.inspect.userEntry(MAYA.id, CHANNEL, 'sol').read())).not.toContain('LOCKER');
		expect(JSON.stringify(await under.engine.exportUser(MAYA.id))).not.toContain('LOCKER');
		expect(GUILD).not.toBe(OTHER_GUILD);
	});
});
