import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DigestLine, foldIntoDigest, type MemoryEngine, PrivacyLevel, type StoredMessage } from '../../src/engine';
import { classify } from '../../src/engine/summaries/digest/classify';
import { renderDigest } from '../../src/engine/summaries/digest/renderDigest';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { serverScopeKey, type StoreInspection, userScopeKey } from '../support/store-inspection';
import { SOL, storedConversation } from '../support/stored-messages';
import { ask, CHANNEL, GUILD, MAYA, NOVA, said, THEO, turn } from '../support/turns';

const MINUTE = 60_000;
const START = Date.UTC(2026, 2, 2, 18, 0, 0);

/** Messages one minute apart from 18:00 UTC, with ids m01, m02, … in that order. */
const conversation = (...lines: [who: { id: string; name: string }, text: string][]) => storedConversation(START, ...lines);

const ids = (lines: readonly DigestLine[] | null | undefined) => (lines ?? []).flatMap((line) => line.sourceIds);
const chars = (lines: readonly DigestLine[] | null) => (lines ?? []).map((line) => line.text).join('\n').length;

describe('classify', () => {
	it.each([
		["Let's meet on June 3 at 6pm", ['date', 'number', 'name', 'decision']],
		['the flight lands at 18:30', ['date', 'number']],
		['it was $40 in the end', ['number']],
		['we need twelve chairs', ['number']],
		['see https://example.com/plan', ['link']],
		['I asked Dana about the venue', ['name']],
		['ping @theo about the venue', ['name']],
		['<@482910573615284736> can you check the venue', ['name']],
		['we decided to keep the old logo', ['decision']],
		["I'll send the slides over", ['commitment']],
		['i promise i won’t be late again', ['commitment']],
		['the deadline is coming up fast', ['commitment']],
		['going to buy the paint after work', ['commitment']]
	] as const)('GIVEN %j THEN it is an event, for %j', (text, signals) => {
		expect(classify({ role: 'user', text })).toEqual({ kind: 'event', signals });
	});

	it.each([
		'ok',
		'Ok!',
		'okkk',
		'LOL',
		'lol yes',
		'haha yes',
		'hahahaha',
		'thanks',
		'thank you!!',
		'thanks Maya!',
		'👍',
		'😂😂😂',
		':pepe:',
		'...',
		'me too',
		'same here',
		'sounds good to me',
		'cozy',
		'<@482910573615284736>'
	])('GIVEN %j THEN it is noise', (text) => {
		expect(classify({ role: 'user', text })).toEqual({ kind: 'noise', signals: [] });
	});

	it('GIVEN a one-word reply that is a date, or a time among acknowledgements, THEN it is an event, not noise', () => {
		expect(classify({ role: 'user', text: 'Tuesday' }).kind).toBe('event');
		expect(classify({ role: 'user', text: 'ok, 5pm then' }).kind).toBe('event');
	});

	it('GIVEN capitalised words at the start of a sentence, or the pronoun I, THEN they are not names', () => {
		expect(classify({ role: 'user', text: 'Honestly that was a long walk. Really long.' })).toEqual({ kind: 'chatter', signals: [] });
		expect(classify({ role: 'user', text: "I think I'm tired, I'd rather stay in" })).toEqual({ kind: 'chatter', signals: [] });
	});

	it('GIVEN a member’s question THEN it is a question; a persona’s question is chatter', () => {
		expect(classify({ role: 'user', text: 'is the cabin still free?' }).kind).toBe('question');
		expect(classify({ role: 'user', text: 'what should i cook tonight' }).kind).toBe('event');
		expect(classify({ role: 'persona', text: 'Did people like the book?' }).kind).toBe('chatter');
	});
});

describe('foldIntoDigest', () => {
	it('GIVEN hard events THEN each is kept as its own line, verbatim, with its speaker, time and id', () => {
		const messages = conversation([MAYA, 'We decided: the trip is June 3–7, budget $800'], [SOL, 'Noted, June 3–7 and $800.']);
		const digest = foldIntoDigest(null, messages, 1500);
		expect(digest).toEqual([
			{ text: 'Maya: We decided: the trip is June 3–7, budget $800', sourceIds: ['m01'], ts: START, kind: 'event', authorIds: [MAYA.id] },
			{ text: 'Sol: Noted, June 3–7 and $800.', sourceIds: ['m02'], ts: START + MINUTE, kind: 'event', authorIds: [SOL.id] }
		]);
		expect(renderDigest(digest!)).toEqual([
			'[2026-03-02]',
			'[18:00] Maya: We decided: the trip is June 3–7, budget $800',
			'[18:01] Sol: Noted, June 3–7 and $800.'
		]);
	});

	it('GIVEN an event with line breaks and a long text THEN it is on one line, cut at a word boundary near 200 characters', () => {
		const long = `Plan for Saturday:\n\n- meet at 9   \u2028- ${'bring the big blue cooler and the folding chairs '.repeat(8)}`;
		const [line] = foldIntoDigest(null, conversation([MAYA, long]), 1500)!;
		expect(line!.text).not.toMatch(/[\n\u2028]/);
		expect(line!.text.startsWith('Maya: Plan for Saturday: - meet at 9 - bring the big blue cooler')).toBe(true);
		expect(line!.text.length).toBeLessThanOrEqual('Maya: '.length + 200);
		expect(line!.text.endsWith('…')).toBe(true);
		const kept = line!.text.slice('Maya: '.length, -1);
		expect(long.replace(/\s+/g, ' ').startsWith(`${kept} `)).toBe(true);
	});

	it('GIVEN acknowledgements and noise THEN they collapse into one count line citing all of them', () => {
		const messages = conversation([MAYA, 'ok'], [THEO, 'lol'], [MAYA, 'Ok!'], [THEO, '👍']);
		expect(foldIntoDigest(null, messages, 1500)).toEqual([
			{
				text: '(4 short replies: ok ×2, lol, 👍)',
				sourceIds: ['m01', 'm02', 'm03', 'm04'],
				ts: START,
				lastTs: START + 3 * MINUTE,
				kind: 'collapsed',
				authorIds: [MAYA.id, THEO.id]
			}
		]);
	});

	it('GIVEN small talk between events THEN it is counted by speaker, and events split the count lines', () => {
		const messages = conversation(
			[MAYA, 'my legs are still sore'],
			[SOL, 'That sounds rough.'],
			[THEO, 'haha yes'],
			[MAYA, "I'll book the table for 8"],
			[THEO, 'nice'],
			[MAYA, 'nice']
		);
		expect(foldIntoDigest(null, messages, 1500)!.map(({ text, sourceIds }) => [text, sourceIds])).toEqual([
			['(2 other messages: Maya, Sol; 1 short reply: haha yes)', ['m01', 'm02', 'm03']],
			["Maya: I'll book the table for 8", ['m04']],
			['(2 short replies: nice ×2)', ['m05', 'm06']]
		]);
	});

	it('GIVEN noise folded turn after turn THEN it is merged into the count line before it, the same day', () => {
		const messages = conversation([MAYA, 'ok'], [SOL, 'lol'], [MAYA, 'ok'], [SOL, 'hmm that is a thought']);
		let digest = foldIntoDigest(null, messages.slice(0, 2), 1500);
		digest = foldIntoDigest(digest, messages.slice(2), 1500);
		expect(digest).toEqual([
			{
				text: '(1 other message: Sol; 3 short replies: ok ×2, lol)',
				sourceIds: ['m01', 'm02', 'm03', 'm04'],
				ts: START,
				lastTs: START + 3 * MINUTE,
				kind: 'collapsed',
				authorIds: [MAYA.id, SOL.id]
			}
		]);
		const nextDay = { ...messages[0]!, id: 'm99', ts: START + 24 * 60 * MINUTE };
		expect(foldIntoDigest(digest, [nextDay], 1500)!.map((line) => line.text)).toEqual([
			'(1 other message: Sol; 3 short replies: ok ×2, lol)',
			'(1 short reply: ok)'
		]);
	});

	it('GIVEN many distinct replies THEN a count line names the five most frequent and counts the rest', () => {
		const replies = ['ok', 'lol', 'nice', 'cool', 'wow', 'yay', 'oof', 'ok', 'ok', 'lol'];
		const [line] = foldIntoDigest(null, conversation(...replies.map((text): [typeof MAYA, string] => [MAYA, text])), 1500)!;
		expect(line!.text).toBe('(10 short replies: ok ×3, lol ×2, nice, cool, wow, +2 more)');
		expect(line!.sourceIds).toHaveLength(10);
	});

	it('GIVEN a member’s question and another speaker’s yes THEN one line shows both and cites both', () => {
		const messages = conversation([MAYA, 'is the cabin still free?'], [THEO, 'yep 👍'], [MAYA, 'lol']);
		expect(foldIntoDigest(null, messages, 1500)!.map(({ text, sourceIds }) => [text, sourceIds])).toEqual([
			['Maya: is the cabin still free? → Theo: yep 👍', ['m01', 'm02']],
			['(1 short reply: lol)', ['m03']]
		]);
	});

	it('GIVEN a question answered at length THEN the question is kept, and the answer is judged on its own', () => {
		const messages = conversation(
			[MAYA, 'is the cabin still free?'],
			[SOL, 'It was, the last time I looked at it'],
			[MAYA, 'is it?'],
			[MAYA, 'hm']
		);
		expect(foldIntoDigest(null, messages, 1500)!.map(({ text, sourceIds }) => [text, sourceIds])).toEqual([
			['Maya: is the cabin still free?', ['m01']],
			// Unanswered: the same speaker goes on.
			['(2 other messages: Sol, Maya; 1 short reply: hm)', ['m02', 'm03', 'm04']]
		]);
	});

	it('GIVEN the last question folded THEN the messages still in the window tell whether it was answered', () => {
		const [question, answer] = conversation([MAYA, 'is the cabin still free?'], [SOL, 'It was, the last time I looked at it']);
		expect(foldIntoDigest(null, [question!], 1500)![0]!.kind).toBe('collapsed');
		expect(foldIntoDigest(null, [question!], 1500, [answer!])).toEqual([
			{ text: 'Maya: is the cabin still free?', sourceIds: ['m01'], ts: START, kind: 'event', authorIds: [MAYA.id] }
		]);
	});

	it('GIVEN an event the same speaker says again right away THEN its line cites both; said again later, it has a line of its own', () => {
		const messages = conversation(
			[MAYA, "I'll bring the cake"],
			[MAYA, "I'll  bring the cake"],
			[THEO, "I'll bring the cake"],
			[MAYA, "I'll bring the cake"]
		);
		expect(foldIntoDigest(null, messages, 1500)!.map(({ text, sourceIds }) => [text, sourceIds])).toEqual([
			["Maya: I'll bring the cake", ['m01', 'm02']],
			["Theo: I'll bring the cake", ['m03']],
			["Maya: I'll bring the cake", ['m04']]
		]);
	});

	it('GIVEN more than maxChars in lines that tell as much THEN the oldest go first, whole, and the digest stays within it', () => {
		const messages = conversation(
			...Array.from({ length: 30 }, (_, index): [typeof MAYA, string] => [MAYA, `On day ${index + 1} we packed box number ${index + 1}`])
		);
		const digest = foldIntoDigest(null, messages, 300)!;
		expect(chars(digest)).toBeLessThanOrEqual(300);
		expect(digest.at(-1)!.text).toBe('Maya: On day 30 we packed box number 30');
		expect(digest.every((line) => messages.some((message) => line.text === `Maya: ${message.text}`))).toBe(true);
		expect(ids(digest)).toEqual(messages.slice(-ids(digest).length).map((message) => message.id));
	});

	it('GIVEN messages already cited, or older than the newest it folded, THEN folding them again adds nothing', () => {
		const messages = conversation([MAYA, 'we meet at 6pm'], [THEO, 'ok'], [MAYA, 'Dana brings the speakers']);
		const digest = foldIntoDigest(null, messages.slice(1), 1500);
		expect(foldIntoDigest(digest, messages.slice(1), 1500)).toEqual(digest);
		expect(foldIntoDigest(digest, messages, 1500)).toEqual(digest);
		expect(foldIntoDigest(digest, [], 1500)).toEqual(digest);
		expect(foldIntoDigest(null, [], 1500)).toBeNull();
	});

	describe('GIVEN random conversations folded as a crude window slides over them', () => {
		const TEXTS = [
			'ok',
			'lol',
			'haha yes',
			'👍',
			'thanks!',
			'nice',
			'my legs are still sore',
			'that sounds rough',
			'hmm not sure',
			'is the cabin still free?',
			'yep',
			'We decided on the blue tent',
			"I'll call Dana tomorrow",
			'the deposit is $120',
			'meet at 7pm on Friday',
			"we're going to drive up early",
			`${'a very long story about the drive '.repeat(12)}on Sunday`,
			'line one\nline two\u2028line three with Porto',
			'יאללה, נתראה ביום שישי',
			'😂😂',
			''
		];
		const speakers = [MAYA, THEO, SOL];
		const messagesArb = fc
			.array(fc.tuple(fc.nat(speakers.length - 1), fc.nat(TEXTS.length - 1), fc.integer({ min: 0, max: 600 })), { minLength: 1, maxLength: 60 })
			.map((draws) => {
				let ts = START;
				return draws.map(([speaker, text, gap], index): StoredMessage => {
					ts += gap * MINUTE;
					const who = speakers[speaker]!;
					return {
						id: `m${String(index).padStart(3, '0')}`,
						role: who === SOL ? 'persona' : 'user',
						authorId: who.id,
						authorName: who.name,
						text: TEXTS[text]! || '…',
						ts
					};
				});
			});
		const arb = fc.record({
			messages: messagesArb,
			window: fc.integer({ min: 1, max: 10 }),
			step: fc.integer({ min: 1, max: 4 }),
			maxChars: fc.oneof(fc.integer({ min: 100, max: 800 }), fc.constant(100_000))
		});

		/** Slides the window `step` messages at a time; returns the digest after each fold and everything that left the window. */
		function slide({ messages, window, step, maxChars }: { messages: StoredMessage[]; window: number; step: number; maxChars: number }) {
			let digest: DigestLine[] | null = null;
			let kept: StoredMessage[] = [];
			const evicted: StoredMessage[] = [];
			const steps: { before: DigestLine[] | null; batch: StoredMessage[]; following: StoredMessage[]; after: DigestLine[] | null }[] = [];
			for (let at = 0; at < messages.length; at += step) {
				const all = [...kept, ...messages.slice(at, at + step)];
				kept = all.slice(-window);
				const batch = all.slice(0, all.length - kept.length);
				const before = digest;
				digest = foldIntoDigest(digest, batch, maxChars, kept);
				evicted.push(...batch);
				steps.push({ before, batch, following: kept, after: digest });
			}
			return { digest, evicted, steps };
		}

		it('THEN with room enough every message that left the window is cited by exactly one line, and nothing else is', () => {
			fc.assert(
				fc.property(arb, (input) => {
					const { digest, evicted } = slide({ ...input, maxChars: 100_000 });
					expect([...ids(digest)].sort()).toEqual(evicted.map((message) => message.id).sort());
				}),
				{ numRuns: 300 }
			);
		});

		it('THEN the digest is within maxChars, in chronological order, and never cites a message twice or one that did not leave the window', () => {
			fc.assert(
				fc.property(arb, (input) => {
					const { digest, evicted } = slide(input);
					expect(chars(digest)).toBeLessThanOrEqual(input.maxChars);
					const cited = ids(digest);
					expect(new Set(cited).size).toBe(cited.length);
					const left = new Set(evicted.map((message) => message.id));
					expect(cited.every((id) => left.has(id))).toBe(true);
					const times = (digest ?? []).map((line) => line.ts);
					expect(times).toEqual([...times].sort((a, b) => a - b));
					for (const line of digest ?? []) expect(line.text).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
				}),
				{ numRuns: 300 }
			);
		});

		it(
			'THEN the same input gives the same digest, ' +
				'whatever order the messages of a fold come in, and folding a batch, or all that left before it, again changes nothing',
			() => {
				fc.assert(
					fc.property(arb, (input) => {
						expect(slide(input).digest).toEqual(slide(structuredClone(input)).digest);
						const left: StoredMessage[] = [];
						for (const { before, batch, following, after } of slide(input).steps) {
							left.push(...batch);
							expect(foldIntoDigest(before, [...batch].reverse(), input.maxChars, [...following].reverse())).toEqual(after);
							expect(foldIntoDigest(after, batch, input.maxChars, following)).toEqual(after);
							// Lines gone for room leave their messages uncited: a history that repeats them adds nothing either.
							expect(foldIntoDigest(after, left, input.maxChars, following)).toEqual(after);
						}
					}),
					{ numRuns: 300 }
				);
			}
		);
	});
});

describe.each(backends)('digests on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	const serverKey = serverScopeKey(GUILD, CHANNEL, 'sol');
	const stored = (inspect: StoreInspection, key = serverKey) => inspect.entry(key).read();

	const SMALL_TALK = ['lol', 'that sounds fun', 'ok', 'haha yes', 'hmm not sure yet', 'nice', 'my legs are sore', '👍', 'thanks!', 'fair enough'];
	const REPLIES = ['Haha, fair.', 'Sounds good!', 'Got it.', 'That does sound fun.', 'Fair enough!'];

	/** The decision and date first, then 29 turns of small talk, one minute apart. */
	async function thirtyTurns(engine: MemoryEngine, who = MAYA) {
		const first = turn({
			who,
			text: "We decided: the launch party is on Friday March 13 at 7pm at Luigi's",
			reply: 'Noted!',
			timestamp: clock.current
		});
		await engine.recordTurn(first);
		for (let index = 1; index < 30; index++) {
			clock.advance(MINUTE);
			await engine.recordTurn(
				turn({ who, text: SMALL_TALK[index % SMALL_TALK.length], reply: REPLIES[index % REPLIES.length], timestamp: clock.current })
			);
		}
		return first;
	}

	it('GIVEN 30 turns WHEN the context is built THEN the summary tier shows the digest, the early decision and its date intact', async () => {
		const first = await thirtyTurns(under.engine);
		const context = await under.engine.buildContext(ask());
		const summary = context.blocks.find((block) => block.tier === 'summary')!;
		expect(summary.text.split('\n').slice(0, 3)).toEqual([
			'# Earlier in this conversation (digest, UTC)',
			'[2026-03-02]',
			"[18:00] Maya: We decided: the launch party is on Friday March 13 at 7pm at Luigi's"
		]);
		expect(summary.text).toMatch(/\[18:00\] \(\d+ other messages: .*; \d+ short replies: .*\)/);
		expect(summary.sourceIds).toContain(first.history[0]!.messageId);
		expect(context.tokens).toBeLessThanOrEqual(1500);

		// Every message that left the crude window is cited once.
		const entry = (await stored(under.inspect))!;
		const cited = ids(entry.digest!);
		expect(cited).toHaveLength(60 - 10);
		expect(new Set(cited).size).toBe(cited.length);
		expect(cited.some((id) => entry.messages.some((message) => message.id === id))).toBe(false);
	});

	it('GIVEN 30 turns and the tool’s summary THEN the summary tier shows the summary instead, and the digest is kept', async () => {
		await thirtyTurns(under.engine);
		await under.engine.updateShortTermMemory(
			{ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' },
			'Maya is planning the launch party.'
		);
		const summary = (await under.engine.buildContext(ask())).blocks.find((block) => block.tier === 'summary')!;
		expect(summary.text).toBe('# Summary of this conversation\n- Maya is planning the launch party.');
		expect((await stored(under.inspect))!.digest!.length).toBeGreaterThan(0);
	});

	it('GIVEN a member who goes FULL THEN nothing they wrote enters a digest or shows from one, before or after', async () => {
		const { engine, inspect } = under;
		// Nova's words leave the window and are folded while she is MINIMAL…
		await engine.recordTurn(turn({ history: [said(NOVA, 'nova zebra plan: Friday at 5pm', clock.current)], timestamp: clock.current }));
		for (let index = 0; index < 6; index++) {
			clock.advance(MINUTE);
			await engine.recordTurn(turn({ text: `maya counts ${index}`, timestamp: clock.current }));
		}
		expect(JSON.stringify((await stored(inspect))!.digest)).toContain('nova zebra');
		// …then she speaks again and goes FULL before that leaves the window.
		clock.advance(MINUTE);
		await engine.recordTurn(turn({ history: [said(NOVA, 'nova quagga note on Monday', clock.current)], timestamp: clock.current }));
		await engine.setUserSettings(NOVA.id, { privacyLevel: PrivacyLevel.FULL });
		clock.advance(MINUTE);
		await engine.recordTurn(
			turn({
				history: [said(NOVA, 'nova okapi words at 9am', clock.current), said(MAYA, 'maya carries on', clock.current)],
				timestamp: clock.current
			})
		);
		for (let index = 0; index < 8; index++) {
			clock.advance(MINUTE);
			await engine.recordTurn(turn({ text: `maya counts more ${index}`, timestamp: clock.current }));
		}
		const digests = JSON.stringify([(await stored(inspect))!.digest, (await stored(inspect, userScopeKey(MAYA.id, CHANNEL, 'sol')))!.digest]);
		expect(digests).not.toContain('quagga');
		expect(digests).not.toContain('okapi');
		expect(digests).toContain('maya counts 0');
		const context = await engine.buildContext(ask({ query: 'zebra quagga okapi' }));
		expect(context.blocks.map((block) => block.tier)).toContain('summary');
		expect(context.text).not.toMatch(/nova|zebra|quagga|okapi/i);
	});

	it('GIVEN a member’s clearAll THEN no digest line cites them, and the other members’ lines stay', async () => {
		const { engine, inspect } = under;
		const theirs = turn({
			who: THEO,
			history: [
				said(MAYA, 'maya zanzibarine idea: rent the hall on May 2', clock.current),
				said(THEO, 'theo agrees to pay $50', clock.current)
			],
			timestamp: clock.current
		});
		await engine.recordTurn(theirs);
		await thirtyTurns(engine, THEO);
		const before = (await stored(inspect))!.digest!;
		expect(before.some((line) => line.authorIds!.includes(MAYA.id))).toBe(true);
		await engine.clearAll(MAYA.id);
		const after = (await stored(inspect))!.digest!;
		expect(after.some((line) => line.authorIds!.includes(MAYA.id) || line.sourceIds.includes(theirs.history[0]!.messageId!))).toBe(false);
		expect(JSON.stringify(after)).not.toContain('zanzibarine');
		expect(JSON.stringify(after)).toContain('theo agrees to pay $50');
	});

	it('GIVEN a member’s clearShortTerm THEN the digest lines citing them go too', async () => {
		const { engine, inspect } = under;
		await engine.recordTurn(
			turn({ who: THEO, history: [said(MAYA, 'maya plumtastic idea for Sunday', clock.current)], timestamp: clock.current })
		);
		await thirtyTurns(engine, THEO);
		expect(JSON.stringify((await stored(inspect))!.digest)).toContain('plumtastic');
		await engine.clearShortTerm(MAYA.id);
		const digest = (await stored(inspect))!.digest!;
		expect(JSON.stringify(digest)).not.toContain('plumtastic');
		expect(digest.some((line) => line.authorIds!.includes(MAYA.id))).toBe(false);
	});

	it('GIVEN turns recorded again THEN the digest gains nothing', async () => {
		const { engine, inspect } = under;
		const turns = [];
		for (let index = 0; index < 12; index++) {
			clock.advance(MINUTE);
			const recorded = turn({ text: index % 2 ? 'ok' : `step ${index} is done`, timestamp: clock.current });
			turns.push(recorded);
			await engine.recordTurn(recorded);
		}
		const before = (await stored(inspect))!.digest;
		for (const recorded of turns) await engine.recordTurn(recorded);
		expect((await stored(inspect))!.digest).toEqual(before);
		expect(ids(before)).toHaveLength(24 - 10);
	});
});
