/**
 * The forgetting property, on every backend: for random sequences of turns, deletions and edits on Discord,
 * `/session clear`, `clear scope:all`, privacy changes, topics forgotten, members leaving and the bot leaving a
 * server, nothing promised gone (docs/guarantees.md#forgetting) ever appears in a context, in any member's
 * export, in a row of the store, or on SQLite in the bytes of its files (the database after an erasure, the
 * write-ahead log and shared-memory files after any forgetting). See test/support/forgetting.ts for the world and
 * forgetting-model.ts for the model of what is gone.
 *
 * Knobs: PROPERTY_RUNS_FACTOR=10 runs ten times longer; PROPERTY_SEED (and PROPERTY_PATH) replay a seed
 * printed by fast-check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PrivacyLevel } from '../../src';
import { backends, skipEachWhereUnavailable } from '../support/backends';
import { playSteps } from '../support/forgetting';
import type { Place, Step, WorldShape } from '../support/forgetting-world';

const RUNS_FACTOR = Number(process.env.PROPERTY_RUNS_FACTOR ?? 1);
const TIMEOUT = 90_000 * Math.max(1, RUNS_FACTOR);

const member = fc.nat(2);
/** True two times in three; shrinks to true. */
const mostly = fc.nat(2).map((n) => n < 2);
const placeArb: fc.Arbitrary<Place> = fc.oneof(
	{ weight: 3, arbitrary: fc.record({ server: fc.nat(1), channel: fc.nat(2) }) },
	{ weight: 1, arbitrary: fc.constant({ dm: true as const }) }
);

const stepArb: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 20,
		arbitrary: fc.record({
			kind: fc.constant('turn' as const),
			member,
			place: placeArb,
			history: fc.nat(5),
			responders: fc.array(fc.nat(2), { minLength: 1, maxLength: 3 }),
			echo: fc.option(fc.nat(), { freq: 2 }),
			noIds: fc.nat(7).map((n) => n === 7)
		})
	},
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant('chat' as const), member, place: placeArb }) },
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant('ask' as const), member, place: placeArb, persona: fc.nat(2), word: fc.nat() }) },
	{
		weight: 6,
		arbitrary: fc.record({
			kind: fc.constant('delete' as const),
			picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
			stale: fc.boolean(),
			namesMember: fc.boolean()
		})
	},
	{
		weight: 4,
		arbitrary: fc.record({ kind: fc.constant('forgetMessage' as const), pick: fc.nat(), by: member, moderator: fc.nat(3).map((n) => n === 3) })
	},
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), withText: fc.boolean() }) },
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant('clear' as const), member }) },
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant('clearAll' as const), member }) },
	{
		weight: 2,
		arbitrary: fc.record({
			kind: fc.constant('privacy' as const),
			member,
			level: fc.constantFrom(PrivacyLevel.FULL, PrivacyLevel.FULL, PrivacyLevel.PARTIAL, PrivacyLevel.MINIMAL)
		})
	},
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('leave' as const), member, server: fc.nat(1) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('purge' as const), server: fc.nat(1), grace: fc.boolean() }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('saveTopic' as const), member }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('forgetTopic' as const), member, pick: fc.nat() }) },
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('tick' as const),
			// Mostly a pause; sometimes long enough for short-term entries to expire (12 h), and the sweep runs.
			minutes: fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 60, max: 1500 })),
			sweep: mostly
		})
	}
);

const worldArb: fc.Arbitrary<WorldShape> = fc.record({
	members: fc.integer({ min: 2, max: 3 }),
	personas: fc.integer({ min: 1, max: 3 }),
	maxMessagesPerChannel: fc.integer({ min: 2, max: 6 }),
	crudeMessageCount: fc.integer({ min: 0, max: 3 }),
	optIn: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 })
});

const scenarioArb = fc.record({ world: worldArb, steps: fc.array(stepArb, { minLength: 4, maxLength: 28, size: 'max' }) });

/** fast-check parameters: `numRuns` (times `PROPERTY_RUNS_FACTOR`), and `PROPERTY_SEED` / `PROPERTY_PATH` to replay a reported failure. */
function runs(numRuns: number): fc.Parameters<[{ world: WorldShape; steps: Step[] }]> {
	return {
		numRuns: Math.max(1, Math.round(numRuns * RUNS_FACTOR)),
		// Shrinking replays whole conversations: stop it before the test times out and report what it has.
		interruptAfterTimeLimit: TIMEOUT - 20_000,
		markInterruptAsFailure: true,
		...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}),
		...(process.env.PROPERTY_PATH ? { path: process.env.PROPERTY_PATH } : {})
	};
}

describe.each(backends)('GIVEN random turns, deletions, edits, erasures and privacy changes on $name', (backend) => {
	skipEachWhereUnavailable(backend);
	it(
		'THEN nothing promised gone ever appears in a context, an export, a row of the store or a byte of its files',
		async () => {
			await fc.assert(
				fc.asyncProperty(scenarioArb, ({ world, steps }) =>
					playSteps(backend, world, steps, (step, leaks) => expect(leaks, `after ${JSON.stringify(step)}`).toEqual([]))
				),
				runs(backend.file ? 12 : 8)
			);
		},
		TIMEOUT
	);
});
