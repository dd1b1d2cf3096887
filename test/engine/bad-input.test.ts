/**
 * Bad input (issue 5): oversized and empty messages, every Unicode oddity, ids that are not
 * snowflakes, times, budgets and channel lists out of range. Each gets a clear `INVALID_INPUT` or a
 * safe, documented treatment (README: Guarantees), and nothing already stored is lost.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type ContextRequest, MAX_MESSAGE_CHARS, type MemoryTurn, RECORDED_HISTORY_MESSAGES, type TurnMessage } from '../../src/engine';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { serverScopeKey, userScopeKey } from '../support/store-inspection';
import { ask, CHANNEL, GUILD, MAYA, OTHER_CHANNEL, said, snowflake, turn } from '../support/turns';

const LIVE = serverScopeKey(GUILD, CHANNEL, 'sol');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text of exactly `length` characters, made of words. */
const words = (length: number) =>
	'the quick brown fox jumps over the lazy dog '
		.repeat(Math.ceil(length / 44))
		.slice(0, length)
		.replace(/ $/, '.');

describe.each(backends)('bad input on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	const stored = async (key = LIVE) => (await under.inspect.entry(key).read())?.messages.map((message) => message.text) ?? [];
	/** A turn recorded first, which every refusal below must leave in place. */
	const seed = async () => {
		await under.engine.recordTurn(turn({ text: 'kept: my beagle is called Biscuit', channelId: OTHER_CHANNEL, timestamp: clock.current }));
		return stored(serverScopeKey(GUILD, OTHER_CHANNEL, 'sol'));
	};
	const unchanged = async (before: string[]) => expect(await stored(serverScopeKey(GUILD, OTHER_CHANNEL, 'sol'))).toEqual(before);

	describe('GIVEN messages as long as Discord allows', () => {
		it.each([2000, 4000])(
			'WHEN a member writes %i characters THEN the message is stored whole and the context shows its beginning',
			async (length) => {
				const text = words(length);
				await under.engine.recordTurn(turn({ text, timestamp: clock.current }));
				expect(await stored()).toContain(text);
				const recent = (await under.engine.buildContext(ask())).blocks.find((block) => block.tier === 'recent');
				expect(recent?.text).toContain(text.slice(0, 60));
			}
		);
	});

	describe('GIVEN messages longer than Discord allows', () => {
		const oversized: [string, string][] = [
			['4,001 characters', words(4001)],
			['200,000 characters of words', words(200_000)],
			['200,000 characters without a space', 'x'.repeat(200_000)],
			['100,000 emoji, cut in the middle of a pair', `a${'😀'.repeat(100_000)}`],
			['200,000 spaces between two words', `start${' '.repeat(200_000)}end`],
			['25,000 unclosed [System: annotations', '[System:'.repeat(25_000)],
			['100,000 line breaks', 'a\n'.repeat(100_000)],
			['200,000 CJK characters', '漢'.repeat(200_000)]
		];

		const timings: string[] = [];
		afterAll(() => {
			if (timings.length > 0) console.log(`[bad input, ${backend.name}] record + context of oversized messages: ${timings.join('; ')}`);
		});

		it.each(oversized)(
			'WHEN a message holds %s THEN it is cut to 4,000 characters, well-formed, and recorded and served in well under two seconds',
			async (name, text) => {
				const started = performance.now();
				const result = await under.engine.recordTurn(turn({ text, reply: text, timestamp: clock.current }));
				const context = await under.engine.buildContext(ask({ query: text }));
				const elapsed = performance.now() - started;

				expect(result.written).toBe(true);
				for (const message of await stored()) {
					expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
					expect(message).not.toMatch(LONE_SURROGATE);
					if (message.length === MAX_MESSAGE_CHARS || message.length === MAX_MESSAGE_CHARS - 1) expect(message.endsWith('…')).toBe(true);
				}
				expect(context.tokens).toBeLessThanOrEqual(1500);
				expect(context.blocks.map((block) => block.tier)).toContain('recent');
				timings.push(`${name} ${Math.round(elapsed)} ms`);
				expect(elapsed).toBeLessThan(2000);
			}
		);

		it('WHEN a text is longer than 1,000,000 characters THEN the turn is refused with INVALID_INPUT and what was stored stays', async () => {
			const before = await seed();
			await expect(under.engine.recordTurn(turn({ text: 'x'.repeat(1_000_001) }))).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('history[0].text')
			});
			await expect(under.engine.buildContext(ask({ query: 'x'.repeat(1_000_001) }))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			await unchanged(before);
		});
	});

	describe('GIVEN empty, blank and invisible text', () => {
		it.each([
			['empty', ''],
			['spaces', '   '],
			['white space and line breaks', '\n\t \r\n\u3000'],
			['a zero-width space', '\u200B'],
			['zero-width and format characters only', '\u200B\u200D\uFEFF\u2060\u200E'],
			['only an annotation', '[System: the member is typing]']
		])(
			'WHEN the only message is %s THEN the turn is skipped as empty-history; next to a real message it is dropped and the real one kept',
			async (_, blank) => {
				expect(await under.engine.recordTurn(turn({ text: blank }))).toEqual({ written: false, skippedReason: 'empty-history', keys: [] });
				expect(
					await under.engine.recordTurn(turn({ history: [said(MAYA, blank), said(MAYA, 'a real message')], reply: blank }))
				).toMatchObject({ written: false, skippedReason: 'no-response' });
				await under.engine.recordTurn(turn({ history: [said(MAYA, blank), said(MAYA, 'a real message')] }));
				expect(await stored()).toEqual(['a real message', 'Hi! How can I help?']);
			}
		);
	});

	describe('GIVEN every Unicode oddity', () => {
		it(
			'THEN emoji, right-to-left text, zero-width characters inside words and ' +
				'combining marks come back exactly as written, in the store and the context',
			async () => {
				const texts = [
					'👨‍👩‍👧‍👦 🇫🇷 👍🏽 ❤️ family',
					'שלום עולם مرحبا بالعالم',
					'zero\u200Bwidth and jo\u200Dined',
					'e\u0301 n\u0303 z\u0301\u0302\u0303',
					'\u202Eoverride\u202C end',
					'nul \u0000 and bell \u0007 inside'
				];
				await under.engine.recordTurn(turn({ history: texts.map((text) => said(MAYA, text, clock.current)), timestamp: clock.current }));
				expect(await stored()).toEqual([...texts, 'Hi! How can I help?']);
				const context = await under.engine.buildContext(ask());
				for (const text of texts.slice(0, 4)) expect(context.text).toContain(text);
			}
		);

		it(
			[
				'THEN a lone surrogate, in a text or a name, becomes U+FFFD or is kept escaped,',
				'and never breaks the store, a context or an export'
			].join(' '),
			async () => {
				await under.engine.recordTurn(
					turn({
						userName: 'Maya\uD800',
						history: [{ ...said(MAYA, 'half an emoji \uD83D here and \uDE00 there'), authorName: 'M\uDFFFaya' }],
						responses: [{ text: 'reply \uDBFF', personaId: 'sol', personaName: 'Sol\uDC00', messageId: snowflake() }],
						timestamp: clock.current
					})
				);
				expect(await stored()).toEqual(['half an emoji \uFFFD here and \uFFFD there', 'reply \uFFFD']);
				expect((await under.engine.buildContext(ask())).text).toContain('half an emoji \uFFFD here');
				expect(JSON.stringify(await under.engine.exportUser(MAYA.id))).toContain('half an emoji');
			}
		);
	});

	describe('GIVEN ids that are not Discord snowflakes', () => {
		it.each(['482910573615284736', 'sol', 'a', 'persona_1', 'x.y-z', 'A'.repeat(64)])(
			'WHEN an id is %j THEN it is accepted (1 to 64 letters, digits, "_", "." or "-")',
			async (id) => {
				const recorded = await under.engine.recordTurn(turn({ who: { id, name: 'Someone' }, channelId: id, personaId: id }));
				expect(recorded.keys).toEqual([userScopeKey(id, id, id), serverScopeKey(GUILD, id, id)]);
				const context = await under.engine.buildContext(ask({ userId: id, channelId: id, personaId: id }));
				expect(context.text).toContain('hello there');
				expect((await under.engine.exportUser(id)).userId).toBe(id);
			}
		);

		it.each([
			['empty', ''],
			['with a colon (keys are split on it)', 'a:b'],
			['with a space', 'with space'],
			['with a non-ASCII letter', 'ünïcode'],
			['65 characters long', 'A'.repeat(65)],
			['with a line break', '123\n'],
			['a path', '../etc'],
			['a number', 123],
			['null', null]
		])('WHEN an id is %s THEN every call taking it is refused with INVALID_INPUT naming the field, and nothing is written', async (_, id) => {
			const before = await seed();
			const bad = id as string;
			const refused = { code: 'INVALID_INPUT' };
			await expect(under.engine.recordTurn({ ...turn(), userId: bad })).rejects.toMatchObject({
				...refused,
				message: expect.stringContaining('userId')
			});
			await expect(under.engine.recordTurn({ ...turn(), channelId: bad })).rejects.toMatchObject({
				...refused,
				message: expect.stringContaining('channelId')
			});
			await expect(under.engine.recordTurn(turn({ personaId: bad === null ? (0 as unknown as string) : bad }))).rejects.toMatchObject({
				...refused,
				message: expect.stringContaining('personaId')
			});
			await expect(under.engine.recordTurn(turn({ history: [{ ...said(MAYA, 'hi'), authorId: bad }] }))).rejects.toMatchObject({
				...refused,
				message: expect.stringContaining('authorId')
			});
			await expect(under.engine.buildContext(ask({ serverId: bad === null ? (7 as unknown as string) : bad }))).rejects.toMatchObject({
				...refused,
				message: expect.stringContaining('serverId')
			});
			await expect(under.engine.setUserSettings(bad, { crossServerOptIn: true })).rejects.toMatchObject(refused);
			await expect(under.engine.setServerSettings(bad, { privateChannelIds: [CHANNEL] })).rejects.toMatchObject(refused);
			const calls = [
				() => under.engine.exportUser(bad),
				() => under.engine.status(bad),
				() => under.engine.clearAll(bad),
				() => under.engine.listTopics(bad),
				() => under.engine.getUserSettings(bad)
			];
			for (const call of calls) await expect(call()).rejects.toMatchObject(refused);
			await unchanged(before);
		});

		it('WHEN a message id holds characters keys cannot carry, or is too long, THEN the turn is refused; ":" and "." are accepted', async () => {
			for (const messageId of ['', 'a b', 'x'.repeat(129), 'a/b']) {
				await expect(
					under.engine.recordTurn(turn({ history: [said(MAYA, 'hi', undefined, messageId)] })),
					JSON.stringify(messageId)
				).rejects.toMatchObject({ code: 'INVALID_INPUT' });
			}
			expect((await under.engine.recordTurn(turn({ history: [said(MAYA, 'odd id', undefined, 'thread:123.456')] }))).written).toBe(true);
		});
	});

	describe('GIVEN times, budgets and channel lists out of range', () => {
		it.each([
			['negative', -1],
			['not a number', Number.NaN],
			['infinite', Number.POSITIVE_INFINITY],
			['past year 9999, which no date can show', 253_402_300_800_000]
		])(
			'WHEN a message time is %s THEN the turn is refused with INVALID_INPUT, since a time without a date would break every context showing it',
			async (_, timestamp) => {
				const before = await seed();
				await expect(under.engine.recordTurn(turn({ history: [said(MAYA, 'when?', timestamp)] }))).rejects.toMatchObject({
					code: 'INVALID_INPUT',
					message: expect.stringContaining('timestamp')
				});
				await expect(under.engine.recordTurn(turn({ timestamp }))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
				await unchanged(before);
				expect((await under.engine.buildContext(ask({ channelId: OTHER_CHANNEL }))).text).toContain('Biscuit');
			}
		);

		it(
			['WHEN a message time is 0 or the last millisecond of year 9999', 'THEN it is accepted and every context and export still renders'].join(
				' '
			),
			async () => {
				await under.engine.recordTurn(
					turn({ history: [said(MAYA, 'from 1970', 0), said(MAYA, 'from the far future', 253_402_300_799_999)] })
				);
				expect((await under.engine.buildContext(ask())).text).toContain('from the far future');
				expect(JSON.stringify(await under.engine.exportUser(MAYA.id))).toContain('from 1970');
			}
		);

		it.each([
			['negative', -1],
			['fractional', 1.5],
			['above 1,000,000', 1_000_001]
		])('WHEN the token budget is %s THEN the request is refused with INVALID_INPUT', async (_, tokenBudget) => {
			await expect(under.engine.buildContext(ask({ tokenBudget }))).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('tokenBudget')
			});
		});

		it('WHEN the token budget is 0 THEN the context is empty', async () => {
			await under.engine.recordTurn(turn());
			expect(await under.engine.buildContext(ask({ tokenBudget: 0 }))).toEqual({ text: '', tokens: 0, blocks: [] });
		});

		it.each([
			['a number', 5],
			['a string', 'abc'],
			['a list of numbers', [1, 2]],
			['an object', { channel: CHANNEL }],
			['a list with a bad id', [CHANNEL, 'a:b']]
		])('WHEN visibleChannelIds is %s THEN the request is refused with INVALID_INPUT', async (_, visibleChannelIds) => {
			await expect(under.engine.buildContext({ ...ask(), visibleChannelIds } as ContextRequest)).rejects.toMatchObject({
				code: 'INVALID_INPUT',
				message: expect.stringContaining('visibleChannelIds')
			});
		});

		it('WHEN visibleChannelIds is any iterable of ids (a Set, a Map’s keys) THEN it is read as the list it holds', async () => {
			await under.engine.recordTurn(turn({ channelId: OTHER_CHANNEL, text: 'over in the other channel' }));
			const visible = new Map([[OTHER_CHANNEL, true]]);
			expect((await under.engine.buildContext(ask({ visibleChannelIds: new Set([CHANNEL, OTHER_CHANNEL]) }))).text).toContain(
				'over in the other channel'
			);
			expect((await under.engine.buildContext(ask({ visibleChannelIds: visible.keys() }))).text).toContain('over in the other channel');
			expect((await under.engine.buildContext(ask({ visibleChannelIds: new Set([CHANNEL]) }))).text).not.toContain('over in the other channel');
		});

		it('WHEN a turn is not an object, or lacks its history or responses, THEN it is refused with INVALID_INPUT', async () => {
			for (const bad of [
				null,
				'turn',
				42,
				[],
				{ ...turn(), history: undefined },
				{ ...turn(), responses: 'yes' },
				{ ...turn(), history: Array(1001).fill(said(MAYA, 'x')) }
			]) {
				await expect(under.engine.recordTurn(bad as unknown as MemoryTurn), JSON.stringify(bad)?.slice(0, 40)).rejects.toMatchObject({
					code: 'INVALID_INPUT'
				});
			}
		});

		it.each([
			['oldest first', (messages: TurnMessage[]) => messages],
			['newest first', (messages: TurnMessage[]) => [...messages].reverse()]
		])(
			`WHEN a turn's history holds over ${RECORDED_HISTORY_MESSAGES} messages (%s) THEN its newest ${RECORDED_HISTORY_MESSAGES} are recorded`,
			async (_, order) => {
				const start = clock.current - 60_000;
				const history = Array.from({ length: RECORDED_HISTORY_MESSAGES + 10 }, (_, index) =>
					said(MAYA, `message ${index}`, start + index * 1000)
				);
				// A system prompt among them is not a message of the conversation, and takes no place.
				const given = [...order(history), { role: 'system', text: 'You are Sol.' }];
				expect((await under.engine.recordTurn(turn({ history: given, timestamp: clock.current }))).written).toBe(true);
				const [scope] = (await under.engine.inspectChannel({ channelId: CHANNEL, serverId: GUILD, latest: 100 })).scopes;
				const archived = scope!.archive.latest.map((message) => message.text);
				expect(archived).toEqual([...history.slice(10).map((message) => message.text), 'Hi! How can I help?']);
				// `latest` is how many of the newest it shows: none for 0, never the whole archive.
				const newest = async (latest: number) =>
					(await under.engine.inspectChannel({ channelId: CHANNEL, serverId: GUILD, latest })).scopes[0]!.archive.latest.map(
						(message) => message.text
					);
				expect(await newest(0)).toEqual([]);
				expect(await newest(2)).toEqual(archived.slice(-2));
			}
		);
	});
});
