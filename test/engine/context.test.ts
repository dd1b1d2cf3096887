import { countTokens } from 'gpt-tokenizer';
import { beforeEach, describe, expect, it } from 'vitest';
import { type MemoryEngine, PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import type { StoreInspection } from '../support/store-inspection';
import {
	ask,
	CHANNEL,
	DM_CHANNEL,
	GUILD,
	MAYA,
	NOVA,
	OTHER_CHANNEL,
	OTHER_GUILD,
	said,
	snowflake,
	THEO,
	THIRD_CHANNEL,
	turn
} from '../support/turns';

const HOUR = 3_600_000;

describe.each(backends)('context on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	let engine: MemoryEngine;
	let inspect: StoreInspection;
	beforeEach(() => void ({ engine, inspect } = under));

	const tiers = async (request = ask()) => Object.fromEntries((await engine.buildContext(request)).blocks.map((block) => [block.tier, block]));

	describe('GIVEN an empty store', () => {
		it('THEN the context is empty, not an error', async () => {
			expect(await engine.buildContext(ask({ query: 'anything' }))).toEqual({ text: '', tokens: 0, blocks: [] });
		});
	});

	describe('GIVEN a conversation in one channel', () => {
		it('THEN the recent tier holds the newest messages verbatim, under their date, with speaker and source ids', async () => {
			const recorded = turn({ text: 'I adopted a beagle called Biscuit', reply: 'Biscuit is a great name!', timestamp: clock.current });
			await engine.recordTurn(recorded);
			const { recent } = await tiers();
			expect(recent!.text).toContain('Maya: I adopted a beagle called Biscuit');
			expect(recent!.text).toContain('Sol: Biscuit is a great name!');
			expect(recent!.text).toContain('2026-03-02');
			expect(recent!.sourceIds).toEqual([recorded.history[0]!.messageId, recorded.responses[0]!.messageId]);
			expect(recent!.tokens).toBeGreaterThanOrEqual(countTokens(recent!.text));
		});

		it('THEN the relevant tier finds an older message that left the recent window, and the blocks come in tier order', async () => {
			// Small talk: the digest counts it rather than quoting it, so it is the relevant tier that brings it back.
			await engine.recordTurn(turn({ text: 'my sister is getting married soon, so excited about the wedding', timestamp: clock.current }));
			for (let index = 0; index < 30; index++) {
				clock.advance(60_000);
				await engine.recordTurn(
					turn({ text: `random chat number ${index} about the weather`, reply: `ok ${index}`, timestamp: clock.current })
				);
			}
			const context = await engine.buildContext(ask({ query: 'when is the wedding of my sister?' }));
			// Thirty turns without a summary also bring the nudge, and the digest of what left the window.
			expect(context.blocks.map((block) => block.tier)).toEqual(['nudge', 'summary', 'relevant', 'recent']);
			const relevant = context.blocks[2]!;
			expect(relevant.text).toContain('Maya: my sister is getting married soon, so excited about the wedding');
			expect(relevant.text).toMatch(/\[2026-03-02\]\n(.*\n)*Maya: my sister/);
			// Nothing already shown in the recent window is repeated.
			const recentIds = new Set(context.blocks[3]!.sourceIds);
			expect(relevant.sourceIds.some((id) => recentIds.has(id))).toBe(false);
			expect(context.text).toBe(context.blocks.map((block) => block.text).join('\n\n'));
		});

		it('THEN the relevant tier shows a line said again once, where it ranks best', async () => {
			for (let index = 0; index < 15; index++) {
				clock.advance(60_000);
				await engine.recordTurn(
					turn({ text: `wedding planning again, round ${index}`, reply: 'Weddings are a lot!', timestamp: clock.current })
				);
			}
			const { relevant } = await tiers(ask({ query: 'how is the wedding planning going?', tokenBudget: 300 }));
			expect(relevant!.text.match(/Weddings are a lot!/g)).toHaveLength(1);
			expect(relevant!.text.match(/wedding planning again/g)!.length).toBeGreaterThan(1);
		});

		it('THEN the relevant tier shows a line said again in nearly the same words once, and a line changing one of them each time', async () => {
			for (const text of [
				'made a big pot of soup for the week',
				'made a big pot of soup for the week 🙃',
				'made a big pot of soup for the week!!',
				'ugh made a big pot of soup for the week lol',
				'honestly made a big pot of soup for the week',
				'made a big pot of soup for the week...',
				'physio says 4 weeks off the pitch',
				'physio says 8 weeks off the pitch'
			]) {
				clock.advance(60_000);
				await engine.recordTurn(turn({ text, reply: 'Oh no.', timestamp: clock.current }));
			}
			for (let index = 0; index < 30; index++) {
				clock.advance(60_000);
				await engine.recordTurn(turn({ text: `other chat ${index}`, reply: `fine ${index}`, timestamp: clock.current }));
			}
			const context = await engine.buildContext(ask({ query: 'soup for the week, and the physio weeks off?', tokenBudget: 1_000 }));
			const relevant = context.blocks.find((block) => block.tier === 'relevant')!;
			expect(relevant.text.match(/big pot of soup/g)).toHaveLength(1);
			expect(context.text).toContain('physio says 4 weeks off the pitch');
			expect(context.text).toContain('physio says 8 weeks off the pitch');
		});

		it('THEN the summary of the channel is shown first in the summary tier, and keeps the entry for the summary TTL', async () => {
			const { keys } = await engine.recordTurn(turn({ timestamp: clock.current }));
			await inspect.entry(keys[1]!).patch({ summary: 'Maya is planning a trip to Porto in June.' });
			expect((await tiers()).summary!.text).toBe('# Summary of this conversation\n- Maya is planning a trip to Porto in June.');
			clock.hours(20);
			expect((await tiers()).summary).toBeDefined();
			clock.hours(4.1);
			expect(await engine.buildContext(ask())).toEqual({ text: '', tokens: 0, blocks: [] });
		});
	});

	describe('GIVEN the TTLs', () => {
		it('WHEN SHORT_TERM_MEMORY_TTL_HOURS has passed since the last update THEN the entry is not returned', async () => {
			await engine.recordTurn(turn({ text: 'short lived', timestamp: clock.current }));
			clock.hours(11.9);
			expect((await tiers()).recent).toBeDefined();
			clock.hours(0.2);
			expect((await tiers()).recent).toBeUndefined();
		});
	});

	describe('GIVEN a token budget', () => {
		it('THEN the context never exceeds it, in real tokens, however small', async () => {
			for (let index = 0; index < 20; index++) {
				clock.advance(60_000);
				await engine.recordTurn(turn({ text: `message ${index} `.repeat(40), reply: 'noted '.repeat(30), timestamp: clock.current }));
			}
			for (const tokenBudget of [0, 10, 50, 120, 400, 1500]) {
				const context = await engine.buildContext(ask({ query: 'message 3', tokenBudget }));
				expect(context.tokens).toBeLessThanOrEqual(tokenBudget);
				expect(countTokens(context.text)).toBeLessThanOrEqual(context.tokens);
			}
		});

		it('WHEN the newest message alone is longer than the recent share THEN its beginning is shown, cut', async () => {
			await engine.recordTurn(turn({ text: 'long '.repeat(1500), reply: 'short', timestamp: clock.current }));
			const context = await engine.buildContext(ask({ tokenBudget: 200 }));
			expect(context.tokens).toBeLessThanOrEqual(200);
			expect(context.blocks[0]!.text).toContain('Sol: short');
		});
	});

	describe('GIVEN memories in other channels', () => {
		it('THEN same-guild channels of the same lineage appear newest first, at most SHORT_TERM_MEMORY_MAX_OTHER_CHANNELS', async () => {
			const channels = [OTHER_CHANNEL, THIRD_CHANNEL, snowflake(), snowflake()];
			for (const [index, channelId] of channels.entries()) {
				clock.advance(HOUR);
				await engine.recordTurn(turn({ channelId, text: `talk in channel ${index}`, timestamp: clock.current }));
			}
			await engine.recordTurn(
				turn({
					channelId: snowflake(),
					text: 'luna lineage talk',
					responses: [{ text: 'moon', personaId: 'luna', personaLineageId: 'moon', messageId: snowflake() }]
				})
			);
			const { summary } = await tiers();
			const order = [3, 2, 1].map((index) => summary!.text.indexOf(`talk in channel ${index}`));
			expect(order.every((at) => at >= 0)).toBe(true);
			expect(order).toEqual([...order].sort((a, b) => a - b));
			expect(summary!.text).not.toContain('talk in channel 0');
			expect(summary!.text).not.toContain('luna lineage talk');
			expect(summary!.text).toMatch(/<#\d+>, 1 h ago:/);
		});

		it('THEN a persona of the same lineage shares memory across channels', async () => {
			await engine.recordTurn(
				turn({
					channelId: OTHER_CHANNEL,
					text: 'lineage shared',
					responses: [{ text: 'v2 here', personaId: 'sol-v2', personaLineageId: 'sol', messageId: snowflake() }]
				})
			);
			const { summary } = await tiers(ask({ personaId: 'sol', personaLineageId: 'sol' }));
			expect(summary!.text).toContain('lineage shared');
		});

		it('THEN private channels never surface outside themselves or their threads', async () => {
			await engine.setServerSettings(GUILD, { privateChannelIds: [OTHER_CHANNEL] });
			await engine.recordTurn(turn({ channelId: OTHER_CHANNEL, text: 'staff only secret' }));
			expect(JSON.stringify(await tiers())).not.toContain('staff only secret');
			const thread = snowflake();
			expect((await tiers(ask({ channelId: thread, parentChannelId: OTHER_CHANNEL }))).summary!.text).toContain('staff only secret');
		});

		it('THEN channels the member cannot view never surface when the request names the visible ones', async () => {
			await engine.recordTurn(turn({ channelId: OTHER_CHANNEL, text: 'mods channel talk' }));
			await engine.recordTurn(turn({ channelId: THIRD_CHANNEL, text: 'general talk' }));
			const { summary } = await tiers(ask({ visibleChannelIds: [CHANNEL, THIRD_CHANNEL] }));
			expect(summary!.text).toContain('general talk');
			expect(summary!.text).not.toContain('mods channel talk');
		});

		it('THEN another guild and DMs stay out of a guild context unless the user opted in, and then only their own words', async () => {
			await engine.recordTurn(
				turn({
					serverId: OTHER_GUILD,
					channelId: snowflake(),
					history: [said(THEO, 'theo in the other guild'), said(MAYA, 'maya in the other guild')]
				})
			);
			await engine.recordTurn(turn({ serverId: null, channelId: DM_CHANNEL, text: 'maya in a DM' }));
			const before = JSON.stringify(await engine.buildContext(ask({ query: 'guild DM' })));
			expect(before).not.toContain('other guild');
			expect(before).not.toContain('maya in a DM');
			await engine.setUserSettings(MAYA.id, { crossServerOptIn: true });
			const { summary } = await tiers();
			expect(summary!.text).toContain('maya in the other guild');
			expect(summary!.text).toContain('maya in a DM');
			expect(summary!.text).toContain('(another server)');
			expect(summary!.text).not.toContain('theo in the other guild');
			// Nobody else sees Maya's memories from elsewhere.
			expect(JSON.stringify(await tiers(ask({ userId: THEO.id })))).not.toContain('maya in');
		});

		it('THEN a DM context shows the user own other DM channels, and guilds only with opt-in', async () => {
			await engine.recordTurn(turn({ text: 'said in the guild' }));
			await engine.recordTurn(turn({ serverId: null, channelId: snowflake(), text: 'another DM channel' }));
			const dm = ask({ serverId: null, channelId: DM_CHANNEL });
			const text = JSON.stringify(await tiers(dm));
			expect(text).toContain('another DM channel');
			expect(text).not.toContain('said in the guild');
			await engine.setUserSettings(MAYA.id, { crossServerOptIn: true });
			expect(JSON.stringify(await tiers(dm))).toContain('said in the guild');
			expect(JSON.stringify(await tiers(ask({ userId: THEO.id, serverId: null, channelId: DM_CHANNEL })))).toBe('{}');
		});
	});

	describe('GIVEN a member who chose FULL after speaking', () => {
		it('THEN none of their messages appear in any tier', async () => {
			await engine.recordTurn(turn({ history: [said(NOVA, 'nova zebra secret'), said(MAYA, 'maya zebra talk')] }));
			for (let index = 0; index < 15; index++) await engine.recordTurn(turn({ text: `filler ${index}` }));
			await engine.setUserSettings(NOVA.id, { privacyLevel: PrivacyLevel.FULL });
			const context = await engine.buildContext(ask({ query: 'zebra secret' }));
			expect(context.text).toContain('maya zebra talk');
			expect(context.text).not.toContain('nova zebra secret');
		});
	});

	describe('GIVEN a bad request', () => {
		it('THEN buildContext rejects with INVALID_INPUT', async () => {
			await expect(engine.buildContext({ ...ask(), channelId: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			await expect(engine.buildContext({ ...ask(), tokenBudget: -5 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		});
	});
});
