/**
 * `rememberMessage` (the Remember this command): a MINIMAL member's own message, or a persona's reply to them, becomes a
 * note of their profile; anyone else's message, or a member whose privacy level keeps no profile, is answered why not.
 */
import { describe, expect, it } from 'vitest';
import { type MemoryEngine, PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { CHANNEL, DM_CHANNEL, GUILD, MAYA, said, snowflake, THEO, turn } from '../support/turns';

describe.each(backends)('rememberMessage, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	const engine = (): MemoryEngine => under.engine;
	const where = { serverId: GUILD, channelId: CHANNEL };

	/** Maya says she is vegetarian; Sol answers her. */
	async function mayaSaysSo(): Promise<{ messageId: string; replyId: string }> {
		const messageId = snowflake();
		const replyId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA }),
			history: [said(MAYA, 'I am  vegetarian,\n no fish either', clock.current, messageId)],
			responses: [{ text: 'Noted: no meat, no fish for Maya.', personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		return { messageId, replyId };
	}

	it('WHEN Maya remembers her own message THEN it is a note of her profile, one line, and her status counts a profile', async () => {
		const { messageId } = await mayaSaysSo();
		const result = await engine().rememberMessage({ ...where, messageId, userId: MAYA.id });
		expect(result).toEqual({ outcome: 'remembered', note: 'I am vegetarian, no fish either' });
		expect((await engine().getProfile(MAYA.id))?.notes).toEqual(['I am vegetarian, no fish either']);
		expect((await engine().status(MAYA.id)).hasProfile).toBe(true);
	});

	it('WHEN Maya remembers Sol’s reply to her THEN it is kept; Theo may keep neither her message nor that reply', async () => {
		const { messageId, replyId } = await mayaSaysSo();
		expect(await engine().rememberMessage({ ...where, messageId, userId: THEO.id, authorId: THEO.id })).toEqual({ outcome: 'not-yours' });
		expect(await engine().rememberMessage({ ...where, messageId: replyId, userId: THEO.id })).toEqual({ outcome: 'not-yours' });
		expect(await engine().getProfile(THEO.id)).toBeNull();
		expect((await engine().rememberMessage({ ...where, messageId: replyId, userId: MAYA.id })).outcome).toBe('remembered');
		expect((await engine().getProfile(MAYA.id))?.notes).toEqual(['Noted: no meat, no fish for Maya.']);
	});

	it.each([PrivacyLevel.PARTIAL, PrivacyLevel.FULL])(
		'WHEN a %s member asks THEN nothing is kept, and the answer says their level',
		async (level) => {
			const { messageId } = await mayaSaysSo();
			await engine().setUserSettings(MAYA.id, { privacyLevel: level });
			expect(await engine().rememberMessage({ ...where, messageId, userId: MAYA.id, authorId: MAYA.id, text: 'vegetarian' })).toEqual({
				outcome: 'not-minimal',
				privacyLevel: level
			});
			await engine().setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.MINIMAL });
			expect(await engine().getProfile(MAYA.id)).toBeNull();
		}
	);

	it('WHEN the message is 4,000 characters of CJK and emoji THEN the note is cut to 500 characters, never inside an emoji', async () => {
		const messageId = snowflake();
		const text = '我記得你說過這件事。😀'.repeat(400).slice(0, 4_000);
		const result = await engine().rememberMessage({ ...where, messageId, userId: MAYA.id, authorId: MAYA.id, text });
		expect(result.outcome).toBe('remembered');
		expect(result.note).toHaveLength(500);
		expect(result.note!.endsWith('…')).toBe(true);
		expect(result.note).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
		expect((await engine().getProfile(MAYA.id))?.notes).toEqual([result.note]);
	});

	it('WHEN memory holds no copy THEN the text Discord gives is kept for its author; without a text or an author, nothing', async () => {
		const unseen = snowflake();
		expect(await engine().rememberMessage({ ...where, messageId: unseen, userId: MAYA.id, authorId: MAYA.id })).toEqual({
			outcome: 'not-stored'
		});
		expect(await engine().rememberMessage({ ...where, messageId: unseen, userId: MAYA.id, text: 'my birthday is in May' })).toEqual({
			outcome: 'not-stored'
		});
		expect(await engine().rememberMessage({ ...where, messageId: unseen, userId: MAYA.id, authorId: MAYA.id, text: '  \u200b ' })).toEqual({
			outcome: 'empty'
		});
		const kept = await engine().rememberMessage({
			...where,
			messageId: unseen,
			userId: MAYA.id,
			authorId: MAYA.id,
			text: 'my birthday is in May'
		});
		expect(kept).toEqual({ outcome: 'remembered', note: 'my birthday is in May' });
	});

	it('WHEN Maya keeps a message of her DM with the persona THEN it is kept, and her erasure takes the note with it', async () => {
		const replyId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA, serverId: null, channelId: DM_CHANNEL, text: 'what was the wine?' }),
			responses: [{ text: 'The wine was a Douro red from 2019.', personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		const result = await engine().rememberMessage({ serverId: null, channelId: DM_CHANNEL, messageId: replyId, userId: MAYA.id });
		expect(result.outcome).toBe('remembered');
		await engine().clearAll(MAYA.id);
		expect(await engine().getProfile(MAYA.id)).toBeNull();
	});
});
