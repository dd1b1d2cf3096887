import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContextRequest, type MemoryContext, type MemoryEngine, PrivacyLevel } from '../../src';
import { backends, openEngine, TestClock } from '../support/backends';
import { CHANNEL_ID, fixtureMessages, fixtureTurns, loadFixture, PERSONA_ID, SERVER_ID } from '../support/recall';
import { CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, OTHER_GUILD, said, THEO, THIRD_CHANNEL, turn } from '../support/turns';

/**
 * A fixed workload and a fixed set of context requests, whose contexts are kept in
 * `test/fixtures/golden-contexts.txt`: a change that is meant to leave behaviour alone (a refactor)
 * must leave every context byte-identical, on every backend. A change of behaviour updates the file
 * (`npx vitest run test/engine/golden-contexts.test.ts -u`) and says why.
 */

const fixture = loadFixture();
const messages = fixtureMessages(fixture);
const HOUR = 3_600_000;
const BUDGETS = [300, 1500, 4000];

/** A context as the golden file holds it: the joined text, then each block's tier, tokens and sources. */
function render(name: string, context: MemoryContext): string {
	const blocks = context.blocks.map((block) => `- ${block.tier} ${block.tokens} tokens, sources ${block.sourceIds.join(',') || '(none)'}`);
	return [`## ${name}: ${context.tokens} tokens`, ...blocks, context.text, ''].join('\n');
}

/** Records the long fixture, then a small scripted scene of three members over two servers, a thread and a DM. */
async function recordWorkload(engine: MemoryEngine, clock: TestClock): Promise<void> {
	for (const recorded of fixtureTurns(messages)) {
		clock.current = recorded.timestamp!;
		await engine.recordTurn(recorded);
	}
	clock.current = messages.at(-1)!.ts + HOUR;

	const step = (minutes = 3) => clock.advance(minutes * 60_000);
	// Ids made here, not by the shared counter, so that every backend's run records the same messages.
	let next = 0;
	const id = () => `7${String(++next).padStart(17, '0')}`;
	const record = (options: Parameters<typeof turn>[0] & { text: string; who?: { id: string; name: string } }) =>
		engine.recordTurn(
			turn({
				history: [said(options.who ?? MAYA, options.text, clock.current, id())],
				responses: [{ text: options.reply ?? 'Hi! How can I help?', personaId: 'sol', personaName: 'Sol', messageId: id() }],
				timestamp: clock.current,
				...options
			})
		);
	await engine.setUserSettings(NOVA.id, { privacyLevel: PrivacyLevel.FULL });
	await engine.updateProfile(MAYA.id, {
		preferences: { pronouns: 'she/her', coffee: 'flat white' },
		notes: ['Works as a UX designer'],
		tags: ['jazz', 'hiking']
	});
	await engine.saveTopic(MAYA.id, 'Trip to Porto', 'Flights booked for June 3; staying near Ribeira.');
	await engine.saveTopic(MAYA.id, 'Sister wedding', 'Lena marries on August 8 in Porto.');
	await engine.setServerSettings(GUILD, { privateChannelIds: [THIRD_CHANNEL] });

	const lines = [
		'we meet on June 3 at Luigi’s, 6pm',
		'ok',
		'lol',
		'my sister Lena is getting married in Porto on August 8',
		'did you book the flights?',
		'yes',
		'the budget is $1,200 for the whole trip',
		'haha nice',
		'remind me to renew my passport next week',
		'👍',
		'Theo is bringing the board games',
		'what time is it there?',
		'sure',
		'we decided to go with the red tent'
	];
	for (const [index, text] of lines.entries()) {
		step();
		const who = index % 3 === 1 ? THEO : MAYA;
		const nova = index % 4 === 0 ? [said(NOVA, `nova says ${index}: call me on 555-0101`, clock.current - 1000, id())] : [];
		await record({ who, text, history: [...nova, said(who, text, clock.current, id())], reply: `Sol answers ${index}` });
	}
	step();
	await record({ channelId: OTHER_CHANNEL, text: 'in #trips: the hostel is on Rua das Flores', reply: 'Noted the hostel.' });
	step();
	await record({ channelId: THIRD_CHANNEL, text: 'private: my salary is 50k', reply: 'Kept between us.' });
	step();
	await record({ channelId: '810000000000000009', parentChannelId: OTHER_CHANNEL, text: 'thread: packing list is tent, stove, maps' });
	step();
	await record({ serverId: null, channelId: DM_CHANNEL, text: 'in the DM: I am nervous about the speech', reply: 'You will do great.' });
	step();
	await record({ serverId: OTHER_GUILD, channelId: '830000000000000001', text: 'other server: I play bass in a band' });
	step();
	await engine.updateShortTermMemory(
		{ userId: MAYA.id, serverId: GUILD, channelId: OTHER_CHANNEL, personaId: 'sol' },
		{ summary: 'Maya and Theo plan a camping trip; the hostel is on Rua das Flores.' }
	);
	await engine.setUserSettings(MAYA.id, { crossServerOptIn: true });
	step(10);
}

/** The requests whose contexts the golden file keeps. */
function requests(): [string, ContextRequest][] {
	const out: [string, ContextRequest][] = [];
	for (const question of fixture.questions.slice(0, 30)) {
		for (const tokenBudget of BUDGETS) {
			out.push([
				`fixture ${question.id} at ${tokenBudget}`,
				{ userId: MAYA.id, serverId: SERVER_ID, channelId: CHANNEL_ID, personaId: PERSONA_ID, query: question.question, tokenBudget }
			]);
		}
	}
	const scene: [string, ContextRequest][] = [
		[
			'scene guild channel, wedding',
			{ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol', query: 'when is my sister getting married?' }
		],
		[
			'scene guild channel, porto trip',
			{ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol', query: 'what about the Porto trip and flights?' }
		],
		['scene guild channel, Theo asks', { userId: THEO.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol', query: 'what is the budget?' }],
		[
			'scene guild channel, visible channels',
			{ userId: THEO.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol', query: 'hostel', visibleChannelIds: [CHANNEL] }
		],
		['scene other channel with summary', { userId: MAYA.id, serverId: GUILD, channelId: OTHER_CHANNEL, personaId: 'sol', query: 'camping' }],
		[
			'scene thread',
			{ userId: MAYA.id, serverId: GUILD, channelId: '810000000000000009', parentChannelId: OTHER_CHANNEL, personaId: 'sol', query: 'packing' }
		],
		['scene private channel', { userId: MAYA.id, serverId: GUILD, channelId: THIRD_CHANNEL, personaId: 'sol', query: 'salary' }],
		['scene DM', { userId: MAYA.id, serverId: null, channelId: DM_CHANNEL, personaId: 'sol', query: 'speech' }],
		[
			'scene other server, opted in',
			{ userId: MAYA.id, serverId: OTHER_GUILD, channelId: '830000000000000001', personaId: 'sol', query: 'band' }
		],
		['scene other persona', { userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'luna', query: 'wedding' }],
		['scene FULL member asks', { userId: NOVA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol', query: 'call me' }]
	];
	for (const [name, request] of scene) for (const tokenBudget of BUDGETS) out.push([`${name} at ${tokenBudget}`, { ...request, tokenBudget }]);
	return out;
}

describe.each(backends)('golden contexts on $name', (backend) => {
	const clock = new TestClock(messages[0]!.ts);
	let engine: MemoryEngine;
	let dispose: (() => Promise<void>) | undefined;

	beforeAll(async () => {
		if (backend.skipReason) return;
		({ engine, dispose } = await openEngine(backend, { now: clock.now, config: { archiveRetentionDays: 120, sweepIntervalMinutes: 0 } }));
		await recordWorkload(engine, clock);
	}, 180_000);
	afterAll(() => dispose?.());

	it('GIVEN the fixed workload THEN every context of the fixed requests is the one the golden file holds', async ({ skip }) => {
		if (backend.skipReason) skip(backend.skipReason);
		const rendered: string[] = [];
		for (const [name, request] of requests()) {
			// Each request in a turn of the event loop of its own, as a bot's come (the tokenizer's allowance is per turn).
			await nextTurn();
			rendered.push(render(name, await engine.buildContext(request)));
		}
		await expect(rendered.join('\n')).toMatchFileSnapshot('../fixtures/golden-contexts.txt');
	}, 60_000);
});
