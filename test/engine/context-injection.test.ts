import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContextRequest, MemoryEngine } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest, summarizedEngineEachTest } from '../support/engine';
import { ask, eventText, freshPlace, IMITATIONS, MARK, parsedContext, payloads, type Place, pushOut, SEPARATORS, talk } from '../support/injection';

/**
 * Every field a member or the persona's LLM can fill, filled with every line separator and with text imitating each line
 * the plugin writes: the context must parse back (test/support/context-grammar.ts) into exactly the lines the plugin
 * writes for plain text in the same field, with the same speaker on each.
 */

/** One field of the stored data and how a scene fills it. */
interface Field {
	name: string;
	maxChars: number;
	fill: (engine: MemoryEngine, clock: TestClock, place: Place, value: string) => Promise<ContextRequest>;
}

const FIELDS: Field[] = [
	{
		name: 'a member message (recent tier)',
		maxChars: 2000,
		fill: async (engine, clock, place, value) => {
			await talk(engine, clock, place, value);
			return ask(place);
		}
	},
	{
		name: 'a member message that left the window (digest and relevant tier)',
		maxChars: 2000,
		fill: async (engine, clock, place, value) => {
			await talk(engine, clock, place, eventText(value));
			await pushOut(engine, clock, place);
			return ask(place, 'when do we meet in June?');
		}
	},
	{
		name: 'a member display name (recent, digest and relevant tiers)',
		maxChars: 200,
		fill: async (engine, clock, place, value) => {
			const who = { id: place.member.id, name: value };
			await talk(engine, clock, place, eventText('hello'), { who });
			await pushOut(engine, clock, place, who);
			return ask(place, 'when do we meet in June?');
		}
	},
	{
		name: 'the summary tool’s summary',
		maxChars: 1000,
		fill: async (engine, clock, place, value) => {
			await talk(engine, clock, place, 'hello there');
			await engine.updateShortTermMemory({ ...ask(place) }, { summary: value });
			return ask(place);
		}
	},
	{
		name: 'the summary tool’s categories',
		maxChars: 500,
		fill: async (engine, clock, place, value) => {
			await engine.setServerSettings(place.serverId, { summaryCategories: ['plans', 'people'] });
			await talk(engine, clock, place, 'hello there');
			await engine.updateShortTermMemory({ ...ask(place) }, { plans: value, people: `${value} again` });
			return ask(place);
		}
	},
	{
		name: 'a preference’s name',
		maxChars: 64,
		fill: async (engine, clock, place, value) => {
			await engine.updateProfile(place.member.id, { preferences: { [value]: 'yes' } });
			return ask(place);
		}
	},
	{
		name: 'a preference’s value',
		maxChars: 200,
		fill: async (engine, clock, place, value) => {
			await engine.updateProfile(place.member.id, { preferences: { pronouns: value } });
			return ask(place);
		}
	},
	{
		name: 'a profile note',
		maxChars: 500,
		fill: async (engine, clock, place, value) => {
			await engine.updateProfile(place.member.id, { notes: [value] });
			return ask(place);
		}
	},
	{
		name: 'a tag',
		maxChars: 50,
		fill: async (engine, clock, place, value) => {
			await engine.updateProfile(place.member.id, { tags: [value, 'jazz'] });
			return ask(place);
		}
	},
	{
		name: 'a topic’s title',
		maxChars: 94,
		fill: async (engine, clock, place, value) => {
			await engine.saveTopic(place.member.id, `Porto ${value}`, 'Flights booked.');
			return ask(place, 'porto');
		}
	},
	{
		name: 'a topic’s note',
		maxChars: 2000,
		fill: async (engine, clock, place, value) => {
			await engine.saveTopic(place.member.id, 'Porto', value);
			return ask(place, 'porto');
		}
	},
	{
		name: 'a message in another channel (other channels)',
		maxChars: 2000,
		fill: async (engine, clock, place, value) => {
			await talk(engine, clock, place, value, { channelId: place.otherChannelId });
			await talk(engine, clock, place, 'hello there');
			return ask(place);
		}
	},
	{
		name: 'another channel’s summary (other channels)',
		maxChars: 1000,
		fill: async (engine, clock, place, value) => {
			await talk(engine, clock, place, 'hello there', { channelId: place.otherChannelId });
			await engine.updateShortTermMemory({ ...ask(place), channelId: place.otherChannelId }, { summary: value });
			await talk(engine, clock, place, 'hello there');
			return ask(place);
		}
	}
];

// How a context is written does not depend on the store: the default SQLite store alone.
describe.each(backends.filter((backend) => backend.name === 'sqlite'))('context injection on $name', (backend) => {
	const clock = new TestClock();
	const current = freshEngineEachTest(backend, clock, { maxMessagesPerChannel: 4, crudeMessageCount: 2 });

	describe.each(FIELDS)('GIVEN $name', (field) => {
		it(
			'WHEN it holds any line separator, control character or imitation of a plugin line ' +
				'THEN the context has the lines plain text gives, with the same speakers',
			async () => {
				for (const payload of payloads(field.maxChars)) {
					const hostile = await parsedContext(current.engine, await field.fill(current.engine, clock, freshPlace(), payload.value));
					const plain = await parsedContext(current.engine, await field.fill(current.engine, clock, freshPlace(), payload.plain));
					expect(hostile, `${field.name} with ${payload.name}: ${JSON.stringify(payload.value)}`).toEqual(plain);
					expect(hostile.some((line) => line.includes('carrying the field')) || !payload.value.includes(MARK), payload.name).toBe(true);
				}
			}
		);
	});

	it('GIVEN random separators, imitated lines and characters in a message, name, summary or note THEN the lines are as plain text', async () => {
		const piece = fc.oneof(
			fc.constantFrom(...SEPARATORS.map(([, separator]) => separator), ...IMITATIONS, ': ', '(', ' → ', '[', '\t', ' ', 'Sol', '\u0000'),
			fc.string({ unit: 'binary', maxLength: 6 }),
			fc.string({ unit: 'grapheme', maxLength: 6 })
		);
		const text = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));
		const fields = FIELDS.filter((field) => /recent tier|display name|tool’s summary|profile note/.test(field.name));
		await fc.assert(
			fc.asyncProperty(fc.constantFrom(...fields), text, async (field, random) => {
				// The mark first keeps the field from being empty once cleaned (an empty message is no turn at all).
				const value = `${MARK} ${random}`.slice(0, field.maxChars);
				const hostile = await parsedContext(current.engine, await field.fill(current.engine, clock, freshPlace(), value));
				const plain = await parsedContext(current.engine, await field.fill(current.engine, clock, freshPlace(), `${MARK} plain words`));
				expect(hostile, `${field.name}: ${JSON.stringify(value)}`).toEqual(plain);
			}),
			{ numRuns: 120 }
		);
	}, 120_000);

	describe('GIVEN a background summarizer whose answer holds the field', () => {
		const summarized = summarizedEngineEachTest(backend, clock);

		/** Three turns whose digest the summarizer is asked for; it answers `facts`, one per line, each citing every source. */
		const summarize = async (facts: string[]) => {
			summarized.endpoint().script((request) => ({ content: facts.map((fact) => `${fact} [ids: ${request.ids.join(', ')}]`).join('\n') }));
			const place = freshPlace();
			for (let turn = 1; turn <= 3; turn++)
				await talk(summarized.engine, clock, place, `Order ${turn}: ship ${turn * 10} boxes to Porto on June ${turn}.`);
			await summarized.engine.summarizerIdle();
			const request = ask(place);
			expect((await summarized.engine.buildContext(request)).text, `the summary is served: ${JSON.stringify(facts)}`).toContain(
				'# Summary of this conversation'
			);
			return parsedContext(summarized.engine, request);
		};

		it('WHEN a fact holds any separator but a newline, or imitates a plugin line, THEN the context has the lines plain facts give', async () => {
			for (const payload of payloads(800)) {
				// The summarizer's lines are its newlines (citations.ts): each other piece is one fact.
				// A lone "[" (of an escape sequence) gets a summary rejected as malformed, the digest then serving instead.
				const facts = payload.value
					.replace(/\u001B\[/g, '\u001B')
					.split(/\r?\n/)
					.filter((fact) => fact.trim());
				const plain = facts.map((_, at) => `${at === 0 && payload.value.includes(MARK) ? MARK : 'plain'} fact ${at}`);
				expect(await summarize(facts), `${payload.name}: ${JSON.stringify(facts)}`).toEqual(await summarize(plain));
			}
		});
	});
});
