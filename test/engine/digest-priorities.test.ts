import { describe, expect, it } from 'vitest';
import { type DigestLine, foldIntoDigest, type MemoryTurn } from '../../src/engine';
import { classify, fold, isAcknowledgement } from '../../src/engine/summaries/digest/classify';
import { DIGEST_TEXT_CHARS } from '../../src/engine/summaries/digest/foldIntoDigest';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { serverScopeKey } from '../support/store-inspection';
import { SOL, storedConversation } from '../support/stored-messages';
import { ask, CHANNEL, GUILD, MAYA, THEO, turn } from '../support/turns';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const START = Date.UTC(2026, 2, 2, 18, 0, 0);
const DECISION = 'We decided the launch is on 14 March at 10:00 in Porto, budget 4200 euros';

type Line = [who: { id: string; name: string }, text: string];
const conversation = (...lines: Line[]) => storedConversation(START, ...lines);
const texts = (lines: readonly DigestLine[] | null) => (lines ?? []).map((line) => line.text);
const chars = (lines: readonly DigestLine[] | null) => texts(lines).join('\n').length;
/** Maya's `box N is packed now` and Sol's `sure`, `count` times. */
const boxesAndSures = (count: number): Line[] =>
	Array.from({ length: count }, (_, index): Line[] => [
		[MAYA, `box ${index + 1} is packed now`],
		[SOL, 'sure']
	]).flat();

describe('a number alone makes no hard event', () => {
	it.each(['ok sounds good 14', '42', 'thanks Maya, 3', 'yes 2 👍'])('GIVEN %j THEN it is noise', (text) => {
		expect(classify({ role: 'user', text })).toEqual({ kind: 'noise', signals: [] });
	});

	it.each(['it was $40 in the end', 'we need twelve chairs', 'box 14 is packed now', 'ok 30% off then'])(
		'GIVEN %j, a number that counts or prices something, THEN it is an event',
		(text) => {
			expect(classify({ role: 'user', text })).toEqual({ kind: 'event', signals: ['number'] });
		}
	);

	it('GIVEN numbered acknowledgements THEN one count line counts them under one label, without their numbers', () => {
		const messages = conversation([MAYA, 'ok sounds good 14'], [SOL, 'sure'], [MAYA, 'ok sounds good 15'], [SOL, 'sure']);
		expect(texts(foldIntoDigest(null, messages, 1500))).toEqual(['(4 short replies: ok sounds good ×2, sure ×2)']);
	});

	it('GIVEN a member’s question answered by a bare number THEN one line shows both', () => {
		const messages = conversation([MAYA, 'how many chairs do we need?'], [THEO, '12']);
		expect(foldIntoDigest(null, messages, 1500)!.map(({ text, sourceIds }) => [text, sourceIds])).toEqual([
			['Maya: how many chairs do we need? → Theo: 12', ['m01', 'm02']]
		]);
	});
});

describe('when the digest holds more than its room, the least informative lines go first', () => {
	it('GIVEN a decision then more short events than room THEN the decision outlasts them, and the newest of them stay, in order', () => {
		const messages = conversation([MAYA, DECISION], ...boxesAndSures(30));
		const digest = foldIntoDigest(null, messages, 400)!;
		expect(chars(digest)).toBeLessThanOrEqual(400);
		expect(digest[0]!.text).toBe(`Maya: ${DECISION}`);
		const boxes = texts(digest).filter((text) => text.startsWith('Maya: box'));
		expect(boxes.length).toBeGreaterThan(3);
		expect(boxes).toEqual(Array.from({ length: boxes.length }, (_, index) => `Maya: box ${30 - boxes.length + index + 1} is packed now`));
		const times = digest.map((line) => line.ts);
		expect(times).toEqual([...times].sort((a, b) => a - b));
	});

	it('GIVEN events and count lines over the room THEN the count lines go before any event', () => {
		const messages = conversation([MAYA, 'my legs are still sore'], [SOL, 'That sounds rough.'], ...boxesAndSures(5), [
			MAYA,
			'box 6 is packed now'
		]);
		const roomy = foldIntoDigest(null, messages, 1500)!;
		expect(roomy.filter((line) => line.kind === 'collapsed')).toHaveLength(2);
		const events = roomy.filter((line) => line.kind === 'event');
		const tight = foldIntoDigest(null, messages, texts(events).join('\n').length)!;
		expect(tight).toEqual(events);
	});

	it('GIVEN the decision days older than the lines after it THEN it weighs less each day, and gives way once they tell more', () => {
		const decision = foldIntoDigest(null, conversation([MAYA, DECISION]), 1500);
		const halls = Array.from(
			{ length: 12 },
			(_, index): Line => [THEO, `we repainted the ${['blue', 'red', 'green'][index % 3]} hall ${index + 1} with Dana`]
		);
		const later = (days: number) => conversation(...halls).map((message) => ({ ...message, id: `n${message.id}`, ts: message.ts + days * DAY }));
		const room = 350;
		expect(texts(foldIntoDigest(decision, later(0), room))).toContain(`Maya: ${DECISION}`);
		expect(texts(foldIntoDigest(decision, later(5), room))).not.toContain(`Maya: ${DECISION}`);
	});

	it('GIVEN the line citing the newest message folded is the least informative THEN it stays, so folding again adds nothing', () => {
		const messages = conversation([MAYA, DECISION], [THEO, 'box 1 is packed now'], [MAYA, 'lol']);
		const digest = foldIntoDigest(null, messages, DECISION.length + 'Maya: '.length + '(1 short reply: lol)'.length + 1)!;
		expect(texts(digest)).toEqual([`Maya: ${DECISION}`, '(1 short reply: lol)']);
		expect(foldIntoDigest(digest, messages, 1500)).toEqual(digest);
	});
});

describe('runs of the same short reply are counted on one line', () => {
	it('GIVEN `sure` after each of seven events THEN one count line counts the seven and cites each, in its place after the first', () => {
		const messages = conversation(...boxesAndSures(7));
		const digest = foldIntoDigest(null, messages, 1500)!;
		expect(texts(digest)).toEqual(['Maya: box 1 is packed now', '(7 short replies: sure ×7)', ...texts(digest).slice(2)]);
		expect(texts(digest).slice(2)).toEqual(Array.from({ length: 6 }, (_, index) => `Maya: box ${index + 2} is packed now`));
		expect(digest[1]!.sourceIds).toEqual(messages.filter((message) => message.text === 'sure').map((message) => message.id));
	});

	it('GIVEN the same reply folded turn after turn THEN it joins the line that counts it; another reply, or a new day, starts its own', () => {
		const messages = conversation(...boxesAndSures(3), [MAYA, 'box 4 is packed now'], [SOL, 'lol']);
		let digest: DigestLine[] | null = null;
		for (let at = 0; at < messages.length; at += 2) digest = foldIntoDigest(digest, messages.slice(at, at + 2), 1500);
		expect(texts(digest)).toEqual([
			'Maya: box 1 is packed now',
			'(3 short replies: sure ×3)',
			'Maya: box 2 is packed now',
			'Maya: box 3 is packed now',
			'Maya: box 4 is packed now',
			'(1 short reply: lol)'
		]);
		const tomorrow = { ...messages[1]!, id: 'm99', ts: START + DAY };
		expect(texts(foldIntoDigest(digest, [tomorrow], 1500)).at(-1)).toBe('(1 short reply: sure)');
	});

	it('GIVEN a count line that counts 50 messages THEN the next reply starts another: a line rewritten every turn cites few', () => {
		let digest: DigestLine[] | null = null;
		const messages = conversation(...boxesAndSures(60));
		for (let at = 0; at < messages.length; at += 2) digest = foldIntoDigest(digest, messages.slice(at, at + 2), 100_000);
		const counted = digest!.filter((line) => line.kind === 'collapsed');
		expect(counted.map((line) => [line.text, line.sourceIds.length])).toEqual([
			['(50 short replies: sure ×50)', 50],
			['(10 short replies: sure ×10)', 10]
		]);
	});
});

describe('a message is classified by its beginning, which its line shows: reading all of a long one is work for nothing', () => {
	/** Small talk with no date, figure, name or commitment in it, `chars` long. */
	const SMALL_TALK = 'we walked along the river and talked about the weather and the old bridge ';
	const smallTalk = (chars: number) =>
		SMALL_TALK.repeat(Math.ceil(chars / SMALL_TALK.length))
			.slice(0, chars)
			.trim();
	const LATE_DATE = ' and then we settled it: the launch is on 14 March at 10:00';

	it('GIVEN a message whose first 200 characters are small talk AND that names a date only after THEN it is chatter, counted, not an event', () => {
		// Its line would show its first 200 characters at most: an event line kept for a date past them would not show the date,
		// so the digest reads those 200 characters of a message, not all 4,000 of each of a turn's fifty.
		expect(DIGEST_TEXT_CHARS).toBe(200);
		const text = `${smallTalk(200)}${LATE_DATE}`;
		expect(classify({ role: 'user', text })).toEqual({ kind: 'chatter', signals: [] });
		const digest = foldIntoDigest(null, conversation([MAYA, text]), 1500)!;
		expect(digest.map((line) => line.kind)).toEqual(['collapsed']);
		expect(texts(digest).join('\n')).not.toContain('March');
	});

	it('GIVEN the same date within its first 200 characters THEN it is an event, and its line shows the date', () => {
		const text = `${smallTalk(100)}${LATE_DATE} ${smallTalk(3_000)}`;
		expect(classify({ role: 'user', text }).kind).toBe('event');
		const [line] = foldIntoDigest(null, conversation([MAYA, text]), 1500)!;
		expect(line!.kind).toBe('event');
		expect(line!.text).toContain('14 March at 10:00');
	});

	it('GIVEN a drawn-out acknowledgement THEN it folds to its word up to 32 characters, and is a word like any other past them', () => {
		expect(fold(`ye${'s'.repeat(30)}`)).toBe('yes');
		expect(isAcknowledgement(`ye${'s'.repeat(30)}`)).toBe(true);
		expect(fold(`ye${'s'.repeat(31)}`)).toBe(`ye${'s'.repeat(31)}`);
		expect(isAcknowledgement(`ha${'ha'.repeat(20)}`)).toBe(false);
		// A run of CJK is one word: 4,000 characters of it are read as they are, and are no acknowledgement.
		const cjk = Array.from({ length: 4_000 }, (_, at) => String.fromCodePoint(0x4e00 + ((at * 7919) % 20_000))).join('');
		expect(fold(cjk)).toBe(cjk);
		expect(isAcknowledgement(cjk)).toBe(false);
	});
});

describe.each(backends)('digest priorities on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);

	async function decisionThen(turns: (index: number) => MemoryTurn): Promise<MemoryTurn[]> {
		const recorded = [turn({ text: DECISION, reply: 'Noted!', timestamp: clock.current })];
		await under.engine.recordTurn(recorded[0]!);
		for (let index = 1; index <= 25; index++) {
			clock.advance(MINUTE);
			recorded.push(turns(index));
			await under.engine.recordTurn(recorded.at(-1)!);
		}
		return recorded;
	}

	const summaryTier = async () => (await under.engine.buildContext(ask())).blocks.find((block) => block.tier === 'summary')!;

	it('GIVEN a decision, 25 numbered acknowledgements WHEN it has left the window THEN the summary tier shows it and one count line', async () => {
		const [first] = await decisionThen((index) => turn({ text: `ok sounds good ${index}`, reply: 'sure', timestamp: clock.current }));
		const summary = await summaryTier();
		expect(summary.text).toContain(`[18:00] Maya: ${DECISION}`);
		expect(summary.sourceIds).toContain(first!.history[0]!.messageId);
		expect(summary.text).not.toContain('ok sounds good 1');
		expect(summary.text.match(/short repl/g)).toHaveLength(1);
		expect(summary.text).toMatch(/\(\d+ short replies: ok sounds good ×\d+, sure ×\d+, noted\)/);
	});

	it('GIVEN a decision then 25 short events WHEN the tier has not room for all THEN it shows the decision, then the newest events', async () => {
		await decisionThen((index) =>
			turn({ text: `box ${index} is packed now`, reply: `Noted, box ${index} is packed.`, timestamp: clock.current })
		);
		const summary = await summaryTier();
		const lines = summary.text.split('\n');
		expect(lines.slice(0, 3)).toEqual(['# Earlier in this conversation (digest, UTC)', '[2026-03-02]', `[18:00] Maya: ${DECISION}`]);
		expect(lines.at(-1)).toBe('[18:20] Sol: Noted, box 20 is packed.');
		expect(lines).not.toContain('[18:05] Maya: box 5 is packed now');
	});

	it('GIVEN a count line of `sure` replies WHEN one of them is deleted THEN the line citing it goes, and the events stay', async () => {
		const turns = await decisionThen((index) => turn({ text: `box ${index} is packed now`, reply: 'sure', timestamp: clock.current }));
		const digest = async () => (await under.inspect.entry(serverScopeKey(GUILD, CHANNEL, 'sol')).read())!.digest!;
		const counted = (await digest()).find((line) => /short replies: sure ×\d+\)$/.test(line.text))!;
		expect(counted.text).toBe('(20 short replies: sure ×20)');
		const sure = turns[3]!.responses[0]!.messageId!;
		expect(counted.sourceIds).toContain(sure);
		const result = await under.engine.messagesChanged({ serverId: GUILD, channelId: CHANNEL, messageIds: [sure], kind: 'deleted' });
		expect(result.digestLinesRemoved).toBeGreaterThanOrEqual(1);
		expect(JSON.stringify(await digest())).not.toContain(sure);
		expect(texts(await digest())).toContain('Maya: box 3 is packed now');
		expect((await summaryTier()).text).not.toContain('sure ×');
	});
});
