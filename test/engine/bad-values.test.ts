/**
 * Bad values: every public call of the engine, and the plugin's `turnFromMessages`, refuses a value that is not what it
 * takes with a `MemoryError` whose code is `INVALID_INPUT` and whose message names the field: a BigInt, a circular
 * object, a Proxy whose traps throw, an object whose getters, `toString` and `Symbol.toPrimitive` throw, a symbol, a
 * function, `null` and `undefined`, never a `TypeError` from reading or printing them. An iterable is read up to the item
 * past its cap, and refused there (docs/guarantees.md, "Bad input").
 */
import type { Message } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
	type ChannelQuery,
	type ContextRequest,
	MAX_TURN_HISTORY,
	MAX_TURN_RESPONSES,
	MAX_VISIBLE_CHANNELS,
	MemoryEngine,
	type MemoryEngineOptions,
	MemoryError,
	type MemoryTurn,
	type MessagesChange
} from '../../src/engine';
import { turnFromMessages, type TurnFromMessagesInput } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, CHANNEL, GUILD, MAYA, turn } from '../support/turns';

const refuse = () => {
	throw new Error('this value refuses to be read');
};

/** Every field name the engine's inputs have, each a getter that throws. */
const FIELDS = [
	'userId',
	'serverId',
	'channelId',
	'personaId',
	'history',
	'responses',
	'query',
	'visibleChannelIds',
	'messageIds',
	'kind',
	'texts',
	'summary',
	'title',
	'note',
	'text',
	'preferences',
	'notes',
	'privacyLevel',
	'crossServerOptIn',
	'privateChannelIds',
	'latest',
	'trigger',
	'id',
	'lineageId',
	'name'
];

/** The values no call takes, made afresh for each call (a Proxy or a getter may count its reads). */
function badValues(): [string, unknown][] {
	const circular: Record<string, unknown> = {};
	for (const field of ['self', ...FIELDS]) circular[field] = circular;
	const traps = ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'set', 'defineProperty', 'apply', 'construct'];
	const proxy = new Proxy({}, Object.fromEntries(traps.map((trap) => [trap, refuse])));
	const getters = Object.defineProperties(
		{ toString: refuse, valueOf: refuse, toJSON: refuse, [Symbol.toPrimitive]: refuse },
		Object.fromEntries(FIELDS.map((field) => [field, { get: refuse, enumerable: true }]))
	);
	return [
		['a BigInt', 10n ** 40n],
		['a circular object', circular],
		['a Proxy whose every trap throws', proxy],
		['an object whose getters, toString and Symbol.toPrimitive throw', getters],
		['a symbol', Symbol('bad')],
		['a function', () => MAYA.id],
		['null', null],
		['undefined', undefined]
	];
}

/** Resolves with what `call` threw or rejected with, or fails when it did neither. */
async function thrownBy(call: () => unknown): Promise<unknown> {
	try {
		await call();
	} catch (error) {
		return error;
	}
	throw new Error('the call was not refused');
}

/** Asserts that `call` is refused with INVALID_INPUT, and that its message names `field`. */
async function expectRefused(call: () => unknown, field: string, label: string): Promise<void> {
	const thrown = await thrownBy(call);
	expect(thrown, `${label}: ${String(thrown)}`).toBeInstanceOf(MemoryError);
	expect(thrown, label).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining(field) });
}

/** A generator of `total` ids that counts how many were pulled from it (three times a cap: a reader that ignores the cap reads them all). */
function countedIds(total: number) {
	const pulled = { count: 0 };
	function* ids() {
		while (pulled.count < total) {
			pulled.count++;
			yield `${800_000_000_000_000_000 + pulled.count}`;
		}
	}
	return { pulled, ids: ids() };
}

describe.each(backends)('bad values on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	const target = { userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' };
	const change = (overrides: Partial<MessagesChange> = {}): MessagesChange => ({
		serverId: GUILD,
		channelId: CHANNEL,
		messageIds: ['900000000000000001'],
		kind: 'deleted',
		...overrides
	});

	/** Every public call, with `bad` in one place, and the field its refusal must name. `optional`: undefined is accepted there. */
	const calls = (bad: unknown): { call: string; field: string; optional?: boolean; run: () => Promise<unknown> }[] => {
		const { engine } = under;
		const id = bad as string;
		return [
			{ call: 'recordTurn(turn)', field: 'turn', run: () => engine.recordTurn(bad as MemoryTurn) },
			{ call: 'recordTurn({ userId })', field: 'userId', run: () => engine.recordTurn({ ...turn(), userId: id }) },
			{ call: 'recordTurn({ history })', field: 'history', run: () => engine.recordTurn({ ...turn(), history: bad as [] }) },
			{ call: 'recordTurn({ responses })', field: 'responses', run: () => engine.recordTurn({ ...turn(), responses: bad as [] }) },
			{ call: 'buildContext(request)', field: 'context request', run: () => engine.buildContext(bad as ContextRequest) },
			{ call: 'buildContext({ channelId })', field: 'channelId', run: () => engine.buildContext(ask({ channelId: id })) },
			{ call: 'buildContext({ query })', field: 'query', run: () => engine.buildContext(ask({ query: id })) },
			{
				call: 'buildContext({ visibleChannelIds })',
				field: 'visibleChannelIds',
				optional: true,
				run: () => engine.buildContext(ask({ visibleChannelIds: bad as string[] }))
			},
			{ call: 'setUserSettings(userId)', field: 'userId', run: () => engine.setUserSettings(id, { crossServerOptIn: true }) },
			{ call: 'setUserSettings(_, patch)', field: 'user settings', run: () => engine.setUserSettings(MAYA.id, bad as Record<string, never>) },
			{ call: 'getUserSettings', field: 'userId', run: () => engine.getUserSettings(id) },
			{ call: 'setServerSettings(serverId)', field: 'serverId', run: () => engine.setServerSettings(id, { privateChannelIds: [] }) },
			{
				call: 'setServerSettings(_, patch)',
				field: 'server settings',
				run: () => engine.setServerSettings(GUILD, bad as Record<string, never>)
			},
			{ call: 'getServerSettings', field: 'serverId', run: () => engine.getServerSettings(id) },
			{
				call: 'updateShortTermMemory(target)',
				field: 'summary target',
				run: () => engine.updateShortTermMemory(bad as typeof target, { summary: 'kept' })
			},
			{ call: 'updateShortTermMemory(_, input)', field: 'summary', run: () => engine.updateShortTermMemory(target, bad) },
			{ call: 'remember(userId)', field: 'userId', run: () => engine.remember(id, { kind: 'note', text: 'likes tea' }) },
			{ call: 'remember(_, input)', field: 'remember', run: () => engine.remember(MAYA.id, bad) },
			{ call: 'wipeChannel(serverId)', field: 'serverId', run: () => engine.wipeChannel(id, CHANNEL) },
			{ call: 'wipeChannel(_, channelId)', field: 'channelId', run: () => engine.wipeChannel(GUILD, id) },
			{ call: 'serverRemoved', field: 'serverId', run: () => engine.serverRemoved(id) },
			{ call: 'serverRejoined', field: 'serverId', run: () => engine.serverRejoined(id) },
			{ call: 'memberLeft(serverId)', field: 'serverId', run: () => engine.memberLeft(id, MAYA.id) },
			{ call: 'memberLeft(_, userId)', field: 'userId', run: () => engine.memberLeft(GUILD, id) },
			{ call: 'purgeServer', field: 'serverId', run: () => engine.purgeServer(id) },
			{ call: 'status(userId)', field: 'userId', run: () => engine.status(id) },
			{ call: 'status(_, where)', field: 'status location', optional: true, run: () => engine.status(MAYA.id, bad as undefined) },
			{ call: 'clearShortTerm', field: 'userId', run: () => engine.clearShortTerm(id) },
			{ call: 'clearAll', field: 'userId', run: () => engine.clearAll(id) },
			{ call: 'messagesChanged(change)', field: 'message change', run: () => engine.messagesChanged(bad as MessagesChange) },
			{
				call: 'messagesChanged({ messageIds })',
				field: 'messageIds',
				run: () => engine.messagesChanged(change({ messageIds: bad as string[] }))
			},
			{ call: 'exportUser', field: 'userId', run: () => engine.exportUser(id) },
			{ call: 'getProfile', field: 'userId', run: () => engine.getProfile(id) },
			{ call: 'updateProfile(userId)', field: 'userId', run: () => engine.updateProfile(id, { notes: ['likes tea'] }) },
			{ call: 'updateProfile(_, patch)', field: 'profile patch', run: () => engine.updateProfile(MAYA.id, bad as Record<string, never>) },
			{ call: 'saveTopic(userId)', field: 'userId', run: () => engine.saveTopic(id, 'Garden', 'tomatoes') },
			{ call: 'saveTopic(_, topic)', field: 'title', run: () => engine.saveTopic(MAYA.id, bad as { title: string; note: string }) },
			{ call: 'saveTopic(_, _, note)', field: 'note', run: () => engine.saveTopic(MAYA.id, 'Garden', id) },
			{ call: 'listTopics', field: 'userId', run: () => engine.listTopics(id) },
			{ call: 'getTopic(userId)', field: 'userId', run: () => engine.getTopic(id, 'garden') },
			{ call: 'getTopic(_, slug)', field: 'slug', run: () => engine.getTopic(MAYA.id, id) },
			{ call: 'forgetTopic(userId)', field: 'userId', run: () => engine.forgetTopic(id, 'garden') },
			{ call: 'forgetTopic(_, slug)', field: 'slug', run: () => engine.forgetTopic(MAYA.id, id) },
			{ call: 'inspectChannel(query)', field: 'channel query', run: () => engine.inspectChannel(bad as ChannelQuery) },
			{ call: 'inspectChannel({ channelId })', field: 'channelId', run: () => engine.inspectChannel({ channelId: id }) },
			{
				call: 'inspectChannel({ latest })',
				field: 'latest',
				optional: true,
				run: () => engine.inspectChannel({ channelId: CHANNEL, latest: bad as 1 })
			}
		];
	};

	describe.each(badValues().map(([name]) => name))('GIVEN %s', (name) => {
		it('WHEN any public call takes it, in any place, THEN it is refused with INVALID_INPUT naming the field; the engine goes on', async () => {
			await under.engine.recordTurn(turn({ text: 'before the bad values: my beagle is called Biscuit', timestamp: clock.current }));
			for (const { call, field, optional, run } of calls(badValues().find(([each]) => each === name)![1])) {
				if (optional && name === 'undefined') continue;
				await expectRefused(run, field, call);
			}
			expect((await under.engine.buildContext(ask())).text).toContain('Biscuit');
		});
	});

	describe('GIVEN iterables longer than their cap', () => {
		it(`WHEN visibleChannelIds holds 3 × ${MAX_VISIBLE_CHANNELS} ids THEN at most one past the cap is read, refused naming it`, async () => {
			const { pulled, ids } = countedIds(3 * MAX_VISIBLE_CHANNELS);
			const thrown = await thrownBy(() => under.engine.buildContext(ask({ visibleChannelIds: ids })));
			expect(thrown).toBeInstanceOf(MemoryError);
			expect(thrown).toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringMatching(new RegExp(`at most ${MAX_VISIBLE_CHANNELS} .*visibleChannelIds`, 's'))
			});
			expect(pulled.count).toBeLessThanOrEqual(MAX_VISIBLE_CHANNELS + 1);
		});

		it(`WHEN visibleChannelIds holds exactly ${MAX_VISIBLE_CHANNELS} ids THEN they are read and the context is built`, async () => {
			await under.engine.recordTurn(turn({ text: 'the beagle is called Biscuit', timestamp: clock.current }));
			const visible = new Set(Array.from({ length: MAX_VISIBLE_CHANNELS - 1 }, (_, index) => `${900_000_000_000_000_000 + index}`));
			visible.add(CHANNEL);
			expect((await under.engine.buildContext(ask({ visibleChannelIds: visible }))).text).toContain('Biscuit');
		});

		it('WHEN an iterable throws while it is read THEN the request is refused with INVALID_INPUT naming the field', async () => {
			function* failing() {
				yield CHANNEL;
				throw new Error('the gateway went away');
			}
			await expectRefused(() => under.engine.buildContext(ask({ visibleChannelIds: failing() })), 'visibleChannelIds', 'failing');
		});
	});
});

describe('GIVEN MemoryEngine.open', () => {
	it.each(badValues().filter(([name]) => name !== 'null' && name !== 'undefined'))(
		'WHEN a setting is %s THEN it stops with INVALID_CONFIG naming the setting',
		async (_, bad) => {
			const opened = MemoryEngine.open({ storeUrl: 'sqlite://:memory:', env: {}, config: { ttlHours: bad as number } });
			await expect(opened).rejects.toBeInstanceOf(MemoryError);
			await expect(opened).rejects.toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('ttlHours') });
		}
	);

	it.each([10n, Symbol('options'), () => ({}), null, 'sqlite://memory.sqlite'])(
		'WHEN its options are %s THEN it stops with INVALID_CONFIG',
		async (bad) => {
			await expect(MemoryEngine.open(bad as MemoryEngineOptions)).rejects.toMatchObject({
				code: 'INVALID_CONFIG',
				message: expect.stringContaining('options')
			});
		}
	);
});

describe('GIVEN MemoryEngine.open with options that are not settings', () => {
	it.each([
		['keyv', 'a Keyv instance', { keyv: 'redis://127.0.0.1:6379' }],
		['now', 'a function returning milliseconds', { now: 1_700_000_000_000 }],
		['logger', 'an object with warn and error functions', { logger: { log: () => undefined } }],
		['env', 'an object of environment variables', { env: 'MEMORY_STORE_URL=sqlite://:memory:' }],
		['onStoreHealth', 'a function', { onStoreHealth: true }]
	])('WHEN %s is not what it must be THEN it stops with INVALID_CONFIG naming it and what it expects', async (name, expected, options) => {
		const opened = MemoryEngine.open({ storeUrl: 'sqlite://:memory:', ...(options as unknown as MemoryEngineOptions) });
		await expect(opened).rejects.toBeInstanceOf(MemoryError);
		await expect(opened).rejects.toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining(`${name}: expected ${expected}`) });
	});

	it('WHEN several are bad, or one cannot be read THEN one INVALID_CONFIG names each', async () => {
		const options = new Proxy({ now: 'noon', logger: 42 } as Record<string, unknown>, {
			get(target, key) {
				if (key === 'env') throw new Error('no env for you');
				return target[key as string];
			}
		});
		const opened = MemoryEngine.open(options as MemoryEngineOptions);
		await expect(opened).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
		const { message } = (await opened.catch((error: unknown) => error)) as Error;
		for (const part of ['now: expected', 'logger: expected', 'env could not be read (no env for you)']) expect(message).toContain(part);
	});
});

describe("GIVEN the plugin's turnFromMessages", () => {
	const input = (overrides: Partial<Record<keyof TurnFromMessagesInput, unknown>>) =>
		({ trigger: {}, history: [], responses: [], ...overrides }) as TurnFromMessagesInput;

	it.each(badValues())('WHEN its input or any of its fields is %s THEN it is refused with INVALID_INPUT naming the field', async (name) => {
		const fresh = () => badValues().find(([each]) => each === name)![1];
		await expectRefused(() => turnFromMessages(fresh() as TurnFromMessagesInput), 'turnFromMessages input', 'input');
		for (const field of ['trigger', 'history', 'responses'] as const)
			await expectRefused(() => turnFromMessages(input({ [field]: fresh() })), field, field);
		// These may be left out, and the last two are functions.
		const optional = ['persona', 'privacyLevel', 'isStopResponse', ...(name === 'a function' ? [] : ['isPersona', 'personaOf'])];
		if (name !== 'undefined')
			for (const field of optional) await expectRefused(() => turnFromMessages(input({ [field]: fresh() })), field, field);
	});

	it('WHEN a message of the history cannot be read THEN it is refused with INVALID_INPUT naming it', async () => {
		const [, getters] = badValues().find(([name]) => name.startsWith('an object whose getters'))!;
		await expectRefused(() => turnFromMessages(input({ trigger: getters, history: [getters] })), 'trigger', 'message');
	});

	it.each([
		['history', MAX_TURN_HISTORY],
		['responses', MAX_TURN_RESPONSES]
	] as const)('WHEN its %s holds three times its cap of %i THEN one past the cap is read at most, refused naming both', async (field, cap) => {
		const { pulled, ids } = countedIds(3 * cap);
		const messages = (function* messagesOf() {
			for (const id of ids) yield { id } as unknown as Message;
		})();
		const thrown = await thrownBy(() => turnFromMessages(input({ [field]: messages })));
		expect(thrown).toBeInstanceOf(MemoryError);
		expect(thrown).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(new RegExp(`at most ${cap} .*${field}`, 's')) });
		expect(pulled.count).toBeLessThanOrEqual(cap + 1);
	});
});
