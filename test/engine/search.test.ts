import { describe, expect, it } from 'vitest';
import { messageLine } from '../../src/engine/format/lines';
import { PersonaNames } from '../../src/engine/format/speakers';
import { SCANNED_INDEX_MAX } from '../../src/engine/archive/index/ranking';
import { STEP } from '../../src/engine/archive/IndexSlices';
import { ScopeIndex } from '../../src/engine/archive/ScopeIndex';
import { tokenCount } from '../../src/engine/format/tokens';
import type { StoredMessage } from '../../src/engine/schemas';

const WORDS = 'garden tomato river bicycle violin pasta mountain coffee jacket puzzle rocket lantern harbor meadow pepper'.split(' ');

/** `count` messages of three or four words each, reproducibly, with some filler a query never names. */
function conversation(count: number, seed = 7): StoredMessage[] {
	let state = seed;
	const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
	return Array.from({ length: count }, (_, at) => ({
		id: `m${at}`,
		role: at % 2 === 0 ? 'user' : 'persona',
		authorId: at % 2 === 0 ? `u${at % 6}` : 'sol',
		authorName: at % 2 === 0 ? `Member${at % 6}` : 'Sol',
		text: `${Array.from({ length: 3 + (at % 2) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')} and then some`,
		ts: 1_700_000_000_000 + at * 1000
	}));
}

describe('GIVEN a scope index', () => {
	it('THEN the best hits of a limited search are the best of the full ranking, in the same order', () => {
		const index = new ScopeIndex();
		index.add(conversation(3000));
		for (const query of ['tomato violin', 'rocket harbor meadow', 'coffee', 'pasta jacket puzzle pepper']) {
			const full = index.search(query, Number.MAX_SAFE_INTEGER);
			expect(full.length).toBeGreaterThan(50);
			for (let at = 1; at < full.length; at++) expect(full[at]!.score).toBeLessThanOrEqual(full[at - 1]!.score);
			for (const limit of [1, 7, 50]) {
				expect(index.search(query, limit).map((hit) => hit.score)).toEqual(full.slice(0, limit).map((hit) => hit.score));
			}
		}
	});

	it('THEN a message is found through the words of its neighbours, below one that holds them itself', () => {
		const index = new ScopeIndex();
		index.add([
			{ id: 'q', role: 'user', authorId: 'u1', text: 'what was the name of the harbour town?', ts: 1 },
			{ id: 'a', role: 'persona', text: 'It was Porto, I think.', ts: 2 },
			...Array.from(
				{ length: 20 },
				(_, at): StoredMessage => ({ id: `x${at}`, role: 'user', authorId: 'u2', text: `unrelated chatter number ${at}`, ts: 10 + at })
			)
		]);
		const hits = index.search('harbour town');
		expect(hits[0]!.message.id).toBe('q');
		expect(hits.map((hit) => hit.message.id)).toContain('a');
		expect(hits.map((hit) => hit.message.id)).not.toContain('x5');
	});

	it('THEN a removed message leaves no word behind, in its own postings or in its neighbours', () => {
		const index = new ScopeIndex();
		index.add([
			{ id: 'before', role: 'user', text: 'ordinary words here', ts: 1 },
			{ id: 'secret', role: 'user', text: 'my locker code is zanzibar', ts: 2 },
			{ id: 'after', role: 'user', text: 'more ordinary words', ts: 3 }
		]);
		expect(index.search('zanzibar').map((hit) => hit.message.id)).toEqual(['secret', 'before', 'after']);
		index.remove(['secret']);
		expect(index.search('zanzibar')).toEqual([]);
		expect(index.size).toBe(2);
		expect(index.idAt(index.placeOf('before')! + 1)).toBe('after');
	});

	it('THEN terms most messages share are left out, unless the query has nothing else', () => {
		const index = new ScopeIndex();
		index.add(
			Array.from(
				{ length: 200 },
				(_, at): StoredMessage => ({
					id: `m${at}`,
					role: 'user',
					text: at === 150 ? 'weather talk about the eclipse' : `weather talk ${at}`,
					ts: at
				})
			)
		);
		expect(index.search('weather eclipse').map((hit) => hit.message.id)[0]).toBe('m150');
		// "weather" alone is in every message: the rarest known terms still search.
		expect(index.search('weather').length).toBeGreaterThan(0);
	});

	it("THEN the name of a main speaker in others' words ranks nothing apart: a greeting does not outrank what they said", () => {
		// A persona greets Maya by name at the start of every session; once, in passing, she mentions her pottery class.
		const messages: StoredMessage[] = [];
		const say = (role: 'user' | 'persona', text: string) =>
			messages.push({
				id: `m${messages.length}`,
				role,
				authorId: role === 'user' ? 'maya' : 'sol',
				authorName: role === 'user' ? 'Maya' : 'Sol',
				text,
				ts: 1_700_000_000_000 + messages.length * 1000
			});
		for (let session = 0; session < 20; session++) {
			say('user', 'hey');
			say('persona', 'Hey Maya! How was your day?');
			say('user', session === 7 ? 'my pottery class ran late tonight' : `the bus was late again ${WORDS[session % WORDS.length]}`);
			say('persona', 'Oh no, that sounds tiring.');
		}
		const index = new ScopeIndex();
		index.add(messages);
		const hits = index.search('what did Maya make in the pottery course?', 10);
		expect(hits[0]!.message.text).toBe('my pottery class ran late tonight');
		// The one greeting allowed is the pottery message's neighbour.
		expect(hits.filter((hit) => hit.message.text.startsWith('Hey Maya')).length).toBeLessThanOrEqual(1);
		expect(hits.filter((hit) => hit.message.authorName === 'Maya').length).toBeGreaterThanOrEqual(8);
	});

	it('THEN adding a message already indexed changes nothing', () => {
		const index = new ScopeIndex();
		const messages = conversation(100);
		index.add(messages);
		const before = index.search('garden river', 10);
		index.add(messages.slice(40, 60));
		expect(index.size).toBe(100);
		expect(index.search('garden river', 10)).toEqual(before);
	});
});

describe('GIVEN the two ways an index keeps its terms', () => {
	const queries = ['tomato violin', 'rocket harbor meadow', 'coffee', 'pasta jacket puzzle pepper', 'Member3 garden', 'Sol lantern'];
	const ranking = (index: ScopeIndex, query: string, since?: number) =>
		index.search(query, 40, since).map((hit) => `${hit.message.id} ${hit.score}`);

	it('THEN an index scanning the terms of every message ranks exactly as one keeping postings by term, before and after a removal', () => {
		const messages = conversation(700, 11);
		const scanned = new ScopeIndex(Number.POSITIVE_INFINITY);
		const inverted = new ScopeIndex(0);
		scanned.add(messages);
		inverted.add(messages);
		for (const query of queries) {
			expect(ranking(scanned, query).length).toBeGreaterThan(0);
			expect(ranking(scanned, query)).toEqual(ranking(inverted, query));
			expect(ranking(scanned, query, messages[350]!.ts)).toEqual(ranking(inverted, query, messages[350]!.ts));
		}
		const removed = messages.filter((_, at) => at % 7 === 0).map((message) => message.id);
		scanned.remove(removed);
		inverted.remove(removed);
		for (const query of queries) expect(ranking(scanned, query)).toEqual(ranking(inverted, query));
	});

	it('THEN an index that grows past the scanned size, a few messages at a time, ranks as one built at once', () => {
		const messages = conversation(SCANNED_INDEX_MAX + 150, 5);
		const grown = new ScopeIndex();
		for (let at = 0; at < messages.length; at += 3) grown.add(messages.slice(at, at + 3));
		const built = new ScopeIndex(0);
		built.add(messages);
		for (const query of queries) expect(ranking(grown, query)).toEqual(ranking(built, query));
		expect(grown.idAt(grown.placeOf('m10')! + 1)).toBe('m11');
		expect(grown.get('m300')?.id).toBe('m300');
	});

	it('THEN an index fed one message at a time, or in uneven steps (as long messages are), ranks exactly as one built at once', () => {
		for (const scannedUpTo of [SCANNED_INDEX_MAX, 0]) {
			const messages = conversation(300, 13);
			const built = new ScopeIndex(scannedUpTo);
			built.add(messages);
			const single = new ScopeIndex(scannedUpTo);
			for (const message of messages) single.add([message]);
			const uneven = new ScopeIndex(scannedUpTo);
			// Steps of 1 to 16 messages, and each step given again with the next (an append seen twice stores nothing twice).
			for (let at = 0, step = 1; at < messages.length; at += step, step = (step % 16) + 1)
				uneven.add(messages.slice(Math.max(0, at - 1), at + step));
			expect(single.size).toBe(messages.length);
			expect(uneven.size).toBe(messages.length);
			for (const query of queries) {
				expect(ranking(single, query)).toEqual(ranking(built, query));
				expect(ranking(uneven, query)).toEqual(ranking(built, query));
			}
		}
	});

	it('THEN a message longer than a step is read over several steps, each of about a step, and then ranks as one added whole', () => {
		for (const scannedUpTo of [SCANNED_INDEX_MAX, 0]) {
			const messages = conversation(40, 17);
			// Two long messages among short ones: 4,000 characters of words and punctuation, each ending in a word of its own.
			const filler = Array.from({ length: 600 }, (_, at) => `${WORDS[at % WORDS.length]}${at % 9 === 0 ? ',' : ''}`).join(' ');
			messages[10] = { ...messages[10]!, text: `${filler.slice(0, 3_980)} zeppelin` };
			messages[25] = { ...messages[25]!, text: `${filler.slice(0, 3_990)} quokka` };
			const built = new ScopeIndex(scannedUpTo);
			built.add(messages);
			const stepped = new ScopeIndex(scannedUpTo);
			const added: number[] = [];
			for (let done = 0; done < messages.length; ) {
				const before = stepped.size;
				const step = stepped.add(messages.slice(done), STEP);
				added.push(step);
				expect(stepped.size - before).toBe(step);
				done += step;
			}
			// The long message waits, unsearchable, until the step that ends it: no step adds it before that.
			expect(added.filter((step) => step === 0).length).toBeGreaterThanOrEqual(6);
			expect(stepped.size).toBe(messages.length);
			for (const query of [...queries, 'zeppelin', 'quokka']) expect(ranking(stepped, query)).toEqual(ranking(built, query));
			expect(stepped.search('quokka')[0]?.message.id).toBe('m25');
		}
	});

	it('THEN a message half read by a step, then changed, is read again from its start', () => {
		const index = new ScopeIndex();
		const long = { id: 'long', role: 'user', authorId: 'u1', text: `${'violin '.repeat(500)}harbor`, ts: 1 } as StoredMessage;
		expect(index.add([long], STEP)).toBe(0);
		const revised = { ...long, text: `${'garden '.repeat(500)}meadow` };
		while (index.add([revised], STEP) === 0);
		expect(index.search('meadow')[0]?.message.id).toBe('long');
		expect(index.search('violin')).toEqual([]);
		expect(index.search('harbor')).toEqual([]);
	});

	it('THEN a hit read by its place gives the fields of the message it made, and the tokens of its line', () => {
		for (const scannedUpTo of [SCANNED_INDEX_MAX, 0]) {
			const index = new ScopeIndex(scannedUpTo);
			const messages = conversation(400, 11);
			index.add(messages);
			const places = index.rank('violin harbor', 30);
			expect(places.map(({ at, score }) => ({ message: index.messageAt(at), score }))).toEqual(index.search('violin harbor', 30));
			for (const { at } of places) {
				const message = messages[Number(index.idAt(at).slice(1))]!;
				expect(index.messageAt(at)).toEqual(message);
				expect([index.idAt(at), index.timeAt(at), index.authorIdAt(at)]).toEqual([message.id, message.ts, message.authorId]);
				expect(index.placeOf(message.id)).toBe(at);
				expect(index.lineTokensAt(at)).toBe(tokenCount(messageLine(message, PersonaNames.none)));
			}
		}
	});

	it('THEN it knows its own size, and a small channel costs little beyond its messages', () => {
		const index = new ScopeIndex();
		const empty = index.bytes;
		const messages = conversation(10);
		index.add(messages);
		const text = messages.reduce((sum, message) => sum + message.text.length, 0);
		expect(index.bytes).toBeGreaterThan(empty + text);
		// The messages' ids and text, then the index's arrays: no object per message.
		expect(index.bytes - text).toBeLessThan(4_000);
		const more = conversation(400).slice(10);
		index.add(more);
		expect(index.bytes).toBeGreaterThan(empty + text + more.reduce((sum, message) => sum + message.text.length + message.id.length, 0));
	});
});
