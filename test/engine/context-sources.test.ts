/**
 * `contextSources` (the What did you remember? command): which stored messages the context of a persona's reply drew on,
 * kept from `buildContext` to `recordTurn` and then for the short-term TTL, as ids only; shown to the member asking as
 * memory holds each message now, with what they may not see counted, never shown. Looked for in the raw store too.
 */
import { describe, expect, it } from 'vitest';
import { PrivacyLevel, type ContextSourcesViewer, type MemoryEngine, type MemoryTurn } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { rawRows } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, said, snowflake, THEO, turn } from '../support/turns';

const HOUR = 3_600_000;

describe.each(backends)('contextSources, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { ttlHours: 24, summaryTtlHours: 24 });
	const engine = (): MemoryEngine => under.engine;
	const here = (who: { id: string }, extra: Partial<ContextSourcesViewer> = {}): ContextSourcesViewer => ({
		userId: who.id,
		serverId: GUILD,
		channelId: CHANNEL,
		...extra
	});

	/** A turn as the plugin makes it: the context first, then the turn that answers with it. Resolves with the reply's id. */
	async function replyTo(who: { id: string; name: string }, text: string, where: Partial<MemoryTurn> = {}): Promise<string> {
		clock.advance(60_000);
		const replyId = snowflake();
		const location = { serverId: GUILD, channelId: CHANNEL, ...where };
		await engine().buildContext(ask({ userId: who.id, query: text, serverId: location.serverId, channelId: location.channelId }));
		await engine().recordTurn({
			...turn({ who, text, ...location }),
			responses: [{ text: `Noted, ${who.name}.`, personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		return replyId;
	}

	it('WHEN Maya asks about a reply to her THEN she sees what its context drew on, her own lines marked, and the store keeps ids only', async () => {
		await replyTo(MAYA, 'My sister Ilse is visiting from Graz');
		await replyTo(THEO, 'The rehearsal moved to the blue hall');
		const replyId = await replyTo(MAYA, 'What should I cook for Ilse?');
		const sources = await engine().contextSources(replyId, here(MAYA));
		expect(sources).toMatchObject({ kept: true, hidden: 0, gone: 0, omitted: 0 });
		const recent = sources.lines.filter((line) => line.tier === 'recent');
		expect(recent.map((line) => line.text)).toEqual(
			expect.arrayContaining(['My sister Ilse is visiting from Graz', 'The rehearsal moved to the blue hall'])
		);
		for (const line of recent) expect(line.own).toBe(line.authorId === MAYA.id || line.text === 'Noted, Maya.');
		expect(recent.every((line) => line.serverId === GUILD && line.channelId === CHANNEL)).toBe(true);
		// A record per reply, under the member it answered, naming ids and never a word of what was said.
		const rows = (await rawRows(under)).filter((row) => row.includes('sources:'));
		expect(rows.filter((row) => row.includes(`sources:${MAYA.id}:`)).length).toBe(2);
		expect(rows.filter((row) => row.includes(`sources:${THEO.id}:`)).length).toBe(1);
		for (const row of rows) for (const word of ['Ilse', 'Graz', 'rehearsal', 'Noted']) expect(row).not.toContain(word);
	});

	it('WHEN Theo asks about Maya’s reply THEN he sees what his channels show, and other channels’ lines are counted, not shown', async () => {
		await replyTo(NOVA, 'The set builders need more plywood', { channelId: OTHER_CHANNEL });
		await replyTo(THEO, 'Tickets go on sale Friday');
		const replyId = await replyTo(MAYA, 'When do tickets go on sale?');
		const all = await engine().contextSources(replyId, here(THEO));
		expect(all.kept).toBe(true);
		expect(all.lines.some((line) => line.channelId === OTHER_CHANNEL && line.text.includes('plywood'))).toBe(true);
		const narrow = await engine().contextSources(replyId, here(THEO, { visibleChannelIds: [CHANNEL] }));
		expect(narrow.lines.some((line) => line.channelId === OTHER_CHANNEL)).toBe(false);
		expect(narrow.hidden).toBeGreaterThan(0);
		expect(narrow.lines.length + narrow.hidden).toBe(all.lines.length);
		// Only his own lines, and the persona's replies to him, are his to forget.
		expect(narrow.lines.filter((line) => line.own).map((line) => line.text)).toEqual(['Tickets go on sale Friday', 'Noted, Theo.']);
		// From another channel he cannot ask about it at all.
		expect((await engine().contextSources(replyId, here(THEO, { channelId: OTHER_CHANNEL }))).kept).toBe(false);
	});

	it('WHEN a source is forgotten, or its author chooses FULL, THEN its line is gone and counted so', async () => {
		const first = snowflake();
		clock.advance(60_000);
		await engine().recordTurn({ ...turn({ who: MAYA }), history: [said(MAYA, 'My locker code is 4471', clock.current, first)] });
		await replyTo(THEO, 'I keep my keys in the green box');
		const replyId = await replyTo(MAYA, 'Where are the keys?');
		expect((await engine().forgetMessage({ serverId: GUILD, channelId: CHANNEL, messageId: first, userId: MAYA.id })).outcome).toBe('forgotten');
		await engine().setUserSettings(THEO.id, { privacyLevel: PrivacyLevel.FULL });
		const sources = await engine().contextSources(replyId, here(MAYA));
		expect(sources.kept).toBe(true);
		expect(sources.lines.map((line) => line.text).join(' ')).not.toMatch(/4471|green box/);
		expect(sources.gone).toBeGreaterThanOrEqual(2);
	});

	it('WHEN Maya clears or erases her memory THEN nothing of her replies’ sources is left, in the API or the raw store', async () => {
		const before = await replyTo(MAYA, 'I am allergic to peanuts');
		expect((await engine().status(MAYA.id)).contextSources).toBe(1);
		await engine().clearShortTerm(MAYA.id);
		expect(await engine().contextSources(before, here(MAYA))).toMatchObject({ kept: false, lines: [] });
		const after = await replyTo(MAYA, 'Remember my allergy');
		expect((await engine().contextSources(after, here(MAYA))).kept).toBe(true);
		await engine().clearAll(MAYA.id);
		expect((await engine().contextSources(after, here(MAYA))).kept).toBe(false);
		expect((await engine().status(MAYA.id)).contextSources).toBe(0);
		expect((await rawRows(under)).filter((row) => row.includes(`sources:${MAYA.id}`))).toEqual([]);
	});

	it('WHEN the context was built before her clear and the turn lands after THEN that reply keeps no record', async () => {
		await replyTo(MAYA, 'My cat is called Pixel');
		await engine().buildContext(ask({ userId: MAYA.id, query: 'cat' }));
		clock.advance(1_000);
		await engine().clearShortTerm(MAYA.id);
		clock.advance(1_000);
		const replyId = snowflake();
		await engine().recordTurn({
			...turn({ who: MAYA, text: 'what is my cat called?' }),
			responses: [{ text: 'Pixel!', personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		expect((await engine().contextSources(replyId, here(MAYA))).kept).toBe(false);
	});

	it('WHEN the short-term TTL passes THEN the record is gone; a member has at most 16 at once', async () => {
		const replyId = await replyTo(MAYA, 'I run on Tuesdays');
		clock.advance(25 * HOUR);
		expect((await engine().contextSources(replyId, here(MAYA))).kept).toBe(false);
		expect((await engine().status(MAYA.id)).contextSources).toBe(0);
		for (let index = 0; index < 40; index++) await replyTo(MAYA, `Question number ${index}`);
		expect((await engine().status(MAYA.id)).contextSources).toBeLessThanOrEqual(16);
		expect((await rawRows(under)).filter((row) => row.includes(`sources:${MAYA.id}:`)).length).toBeLessThanOrEqual(16);
	});

	it('WHEN the reply is in Maya’s DM THEN she sees its sources, and no one else can ask about it', async () => {
		const dm = { serverId: null, channelId: DM_CHANNEL };
		await replyTo(MAYA, 'My passport expires in March', dm);
		const replyId = await replyTo(MAYA, 'When does my passport expire?', dm);
		const mine = await engine().contextSources(replyId, { userId: MAYA.id, ...dm });
		expect(mine.lines.some((line) => line.text === 'My passport expires in March' && line.serverId === null)).toBe(true);
		expect((await engine().contextSources(replyId, { userId: THEO.id, ...dm })).kept).toBe(false);
	});

	it('WHEN a reply is forgotten THEN its record goes with it; bad input is refused clearly', async () => {
		const replyId = await replyTo(MAYA, 'I play the oboe');
		expect((await engine().forgetMessage({ serverId: GUILD, channelId: CHANNEL, messageId: replyId, userId: MAYA.id })).outcome).toBe(
			'forgotten'
		);
		expect((await engine().contextSources(replyId, here(MAYA))).kept).toBe(false);
		await expect(engine().contextSources('', here(MAYA))).rejects.toThrow(/reply message id/);
		await expect(engine().contextSources(replyId, { ...here(MAYA), userId: 'not an id' })).rejects.toThrow(/viewer/);
	});
});

describe.each(backends)('contextSources from the archive, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 4 });
	const engine = (): MemoryEngine => under.engine;

	it('WHEN the relevant tier drew on archived messages THEN their lines are read from the archive, and one forgotten there is gone', async () => {
		const lighthouse = snowflake();
		clock.advance(60_000);
		await engine().recordTurn({
			...turn({ who: MAYA }),
			history: [said(MAYA, 'The lighthouse keeper is my uncle Bram', clock.current, lighthouse)]
		});
		for (let index = 0; index < 10; index++) {
			clock.advance(60_000);
			await engine().recordTurn(turn({ who: index % 2 ? THEO : NOVA, text: `Stage call ${index} is at seven` }));
		}
		clock.advance(60_000);
		const replyId = snowflake();
		await engine().buildContext(ask({ userId: MAYA.id, query: 'who is the lighthouse keeper' }));
		await engine().recordTurn({
			...turn({ who: MAYA, text: 'who is the lighthouse keeper?' }),
			responses: [{ text: 'Your uncle Bram.', personaId: 'sol', personaName: 'Sol', messageId: replyId }]
		});
		const where = { userId: MAYA.id, serverId: GUILD, channelId: CHANNEL };
		const { lines } = await engine().contextSources(replyId, where);
		// The digest quotes her message (the summary tier), and the relevant tier shows what was said around it, read from the archive.
		expect(lines).toContainEqual(expect.objectContaining({ messageId: lighthouse, own: true, text: 'The lighthouse keeper is my uncle Bram' }));
		expect(lines.filter((line) => line.tier === 'relevant').map((line) => line.text)).toContain('Stage call 0 is at seven');
		await engine().forgetMessage({ ...where, messageId: lighthouse });
		const after = await engine().contextSources(replyId, where);
		expect(after.lines.some((line) => line.messageId === lighthouse)).toBe(false);
		expect(after.gone).toBeGreaterThanOrEqual(1);
	});
});
