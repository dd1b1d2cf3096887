import { beforeEach, describe, expect, it } from 'vitest';
import { type MemoryEngine, PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { serverScopeKey, type StoreInspection, userScopeKey } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, turn } from '../support/turns';

describe.each(backends)('summaries on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock, { maxSummaryLength: 120 });
	let engine: MemoryEngine;
	let inspect: StoreInspection;
	beforeEach(() => void ({ engine, inspect } = under));
	const target = { userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' };

	describe('GIVEN a conversation with fewer turns than MEMORY_REFRESH_CADENCE', () => {
		it('THEN there is no nudge block', async () => {
			for (let index = 0; index < 4; index++) await engine.recordTurn(turn({ text: `turn ${index}` }));
			expect((await engine.buildContext(ask())).blocks.map((block) => block.tier)).not.toContain('nudge');
		});
	});

	describe('GIVEN MEMORY_REFRESH_CADENCE turns without a summary', () => {
		beforeEach(async () => {
			for (let index = 0; index < 5; index++) await engine.recordTurn(turn({ text: `turn ${index}` }));
		});

		it('THEN every context carries a nudge naming the tool, until the tool is called', async () => {
			for (let index = 0; index < 2; index++) {
				const context = await engine.buildContext(ask());
				const nudge = context.blocks.find((block) => block.tier === 'nudge');
				expect(nudge?.text).toContain('update_short_term_memory');
				await engine.recordTurn(turn({ text: `more ${index}` }));
			}
			await engine.updateShortTermMemory(target, 'Maya counted turns.');
			expect((await engine.buildContext(ask())).blocks.map((block) => block.tier)).not.toContain('nudge');
		});

		it('THEN the summary is written to both scopes, keeps the crude messages and resets the counter', async () => {
			const result = await engine.updateShortTermMemory(target, '  Maya likes {user} beagles. {persona.name} agreed.  ');
			expect(result.summary).toBe('Maya likes beagles. agreed.');
			for (const key of [userScopeKey(MAYA.id, CHANNEL, 'sol'), serverScopeKey(GUILD, CHANNEL, 'sol')]) {
				const entry = (await inspect.entry(key).read())!;
				expect(entry.summary).toBe('Maya likes beagles. agreed.');
				expect(entry.turnsSinceRefresh).toBe(0);
				expect(entry.lastUpdated).toBe(clock.current);
			}
			expect((await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!.messages.length).toBe(10);
			expect((await engine.buildContext(ask())).blocks[0]).toMatchObject({
				tier: 'summary',
				text: expect.stringContaining('Maya likes beagles.')
			});
		});
	});

	describe('GIVEN bad tool calls', () => {
		it('THEN non-strings, empty summaries, a second call in the same turn and FULL users are refused with a readable error', async () => {
			await expect(engine.updateShortTermMemory(target, 42)).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('string')
			});
			await expect(engine.updateShortTermMemory(target, '  {user}  ')).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('non-empty')
			});
			await engine.updateShortTermMemory({ ...target, turnId: '77' }, 'first');
			await expect(engine.updateShortTermMemory({ ...target, turnId: '77' }, 'second')).rejects.toMatchObject({
				message: expect.stringContaining('already updated in this turn')
			});
			await engine.setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.FULL });
			await expect(engine.updateShortTermMemory(target, 'anything')).rejects.toMatchObject({ message: expect.stringContaining('disabled') });
		});

		it('THEN a long summary is cut to SHORT_TERM_MEMORY_MAX_SUMMARY_LENGTH', async () => {
			const { summary } = await engine.updateShortTermMemory(target, 'word '.repeat(100));
			expect(summary.length).toBeLessThanOrEqual(120);
			expect(summary.endsWith('…')).toBe(true);
		});
	});

	describe('GIVEN a server in category mode', () => {
		beforeEach(async () => {
			await engine.setServerSettings(GUILD, { summaryCategories: ['plans', 'people'] });
		});

		it('THEN every category is required, the map replaces the old one, and the summary tier shows it', async () => {
			await engine.recordTurn(turn());
			await expect(engine.updateShortTermMemory(target, 'free text')).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('plans, people')
			});
			await expect(engine.updateShortTermMemory(target, { plans: 'x', people: 7 })).rejects.toMatchObject({
				message: expect.stringContaining('people')
			});
			await engine.updateShortTermMemory(target, { plans: 'trip to Porto', people: 'Maya, Theo' });
			await engine.updateShortTermMemory(target, { plans: 'trip moved to June', people: '{user} and Theo' });
			const entry = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!;
			expect(entry).toMatchObject({ summary: null, categories: { plans: 'trip moved to June', people: 'and Theo' } });
			const summary = (await engine.buildContext(ask())).blocks.find((block) => block.tier === 'summary')!;
			expect(summary.text).toContain('plans: trip moved to June');
		});

		it('THEN more than five or malformed category names are refused', async () => {
			await expect(engine.setServerSettings(GUILD, { summaryCategories: ['a', 'b', 'c', 'd', 'e', 'f'] })).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('at most 5')
			});
			await expect(engine.setServerSettings(GUILD, { summaryCategories: ['Bad Name'] })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		});

		it('THEN a DM still takes one free-form summary', async () => {
			const { summary } = await engine.updateShortTermMemory({ ...target, serverId: null, channelId: DM_CHANNEL }, { summary: 'dm talk' });
			expect(summary).toBe('dm talk');
		});
	});

	describe('GIVEN the remember tool', () => {
		it('THEN a MINIMAL user gets preferences, notes, tags and topics saved, and PARTIAL or FULL users are refused', async () => {
			await engine.remember(MAYA.id, { kind: 'preference', name: 'tea', text: 'green, no sugar' });
			await engine.remember(MAYA.id, { kind: 'note', text: 'has a beagle named Biscuit' });
			await engine.remember(MAYA.id, { kind: 'tag', text: 'runner' });
			expect(await engine.remember(MAYA.id, { kind: 'topic', name: 'Porto trip', text: 'June 4 to 9' })).toEqual({
				kind: 'topic',
				saved: 'porto-trip'
			});
			expect(await engine.getProfile(MAYA.id)).toMatchObject({
				preferences: { tea: 'green, no sugar' },
				notes: ['has a beagle named Biscuit'],
				tags: ['runner']
			});
			await expect(engine.remember(MAYA.id, { kind: 'topic', text: 'no title' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			await expect(engine.remember(MAYA.id, { kind: 'opinion', text: 'x' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			await engine.setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.PARTIAL });
			await expect(engine.remember(MAYA.id, { kind: 'note', text: 'anything' })).rejects.toMatchObject({ code: 'PRIVACY_REFUSED' });
		});
	});

	describe('GIVEN a DM', () => {
		it('THEN only the user scope gets the summary', async () => {
			const { keys } = await engine.updateShortTermMemory({ ...target, serverId: null, channelId: DM_CHANNEL }, 'dm summary');
			expect(keys).toEqual([userScopeKey(MAYA.id, DM_CHANNEL, 'sol')]);
		});
	});
});
