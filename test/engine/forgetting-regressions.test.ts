import { describe, expect, it } from 'vitest';
import { backends, skipEachWhereUnavailable } from '../support/backends';
import { playSteps } from '../support/forgetting';
import type { Step, WorldShape } from '../support/forgetting-world';

const WORLD: WorldShape = { members: 2, personas: 1, maxMessagesPerChannel: 2, crudeMessageCount: 0, optIn: [false, false, false] };

/** Maya speaks in `channel` of the first server, and Aria answers her. */
const mayaSpeaks = (channel: number): Step => ({
	kind: 'turn',
	member: 0,
	place: { server: 0, channel },
	history: 0,
	responders: [0],
	echo: null,
	noIds: false
});

/** Maya's message edited away without its new text, then her entries expire and the sweep runs: only the archive holds the reply to her turn. */
const editedAwayThenSwept: Step[] = [mayaSpeaks(0), { kind: 'edit', pick: 0, withText: false }, { kind: 'tick', minutes: 800, sweep: true }];

/**
 * Counterexamples the forgetting property found (test/engine/forgetting-properties.test.ts), shrunk, replayed on every
 * backend. The first two failed before a persona's reply in a guild channel listed the channel in the author index of the
 * member it answered: the sweep had dropped the listing with her message, and her erasure no longer found the archive. The
 * third failed on SQLite when the file's rewrite first ran in a worker thread whose connection lacked `secure_delete`: the
 * new file's unused room kept the text of a message edited away a step before.
 */
const CASES: [string, Step[]][] = [
	[
		'GIVEN Maya’s message edited away and her entries swept, WHEN she erases everything THEN the reply to her turn leaves the archive',
		[...editedAwayThenSwept, { kind: 'clearAll', member: 0 }]
	],
	[
		'GIVEN Maya’s message edited away and her entries swept, WHEN she clears her short-term memory THEN the reply to her turn leaves the archive',
		[...editedAwayThenSwept, { kind: 'clear', member: 0 }]
	],
	[
		'GIVEN turns in two servers, Maya leaving one, Theo clearing, WHEN a message is edited away and a topic saved THEN no file holds it',
		[
			{ kind: 'turn', member: 0, place: { server: 1, channel: 0 }, history: 0, responders: [0], echo: null, noIds: false },
			mayaSpeaks(0),
			{ kind: 'turn', member: 1, place: { server: 1, channel: 0 }, history: 0, responders: [0], echo: null, noIds: false },
			{ kind: 'leave', member: 0, server: 1 },
			{ kind: 'clear', member: 1 },
			{ kind: 'edit', pick: 1290536918, withText: false },
			{ kind: 'saveTopic', member: 0 }
		]
	]
];

describe.each(backends)('forgetting counterexamples, replayed on $name', (backend) => {
	skipEachWhereUnavailable(backend);
	it.each(CASES)('%s', async (_, steps) => {
		await playSteps(backend, WORLD, steps, (step, leaks) => expect(leaks, `after ${JSON.stringify(step)}`).toEqual([]));
	});
});
