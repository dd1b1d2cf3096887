import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type z } from 'zod';
import { ArchiveChunkSchema, LATEST_TIME, ListingsSchema, ShortTermEntrySchema } from '../../src/engine/schemas';
import { isPlainChunk, isPlainEntry, isPlainListings } from '../../src/engine/store/plainValues';

/**
 * The checks at a glance in src/engine/store/plainValues.ts stand in for zod on the reply path: each may accept
 * only values its zod schema parses to an equal value, or a damaged value would be used as it is. They must also
 * accept what the engine writes, or the reply path would pay for zod after all.
 */

const id = fc.stringMatching(/^\d{1,20}$/);
const time = fc.integer({ min: 0, max: LATEST_TIME });
const text = fc.string({ maxLength: 40 });
const message = fc.record(
	{ id, role: fc.constantFrom('user', 'persona'), authorId: id, authorName: text, text, ts: time, personaId: id },
	{ requiredKeys: ['id', 'role', 'text', 'ts'] }
);
const digestLine = fc.record(
	{
		text,
		sourceIds: fc.array(id, { maxLength: 3 }),
		ts: time,
		lastTs: time,
		kind: fc.constantFrom('event', 'collapsed'),
		authorIds: fc.array(id, { maxLength: 2 })
	},
	{ requiredKeys: ['text', 'sourceIds', 'ts', 'kind'] }
);
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
const entry = fc.record({
	scope: fc.constantFrom('user', 'server'),
	userId: nullable(id),
	serverId: id,
	channelId: id,
	parentChannelId: nullable(id),
	personaId: nullable(id),
	lineageId: nullable(id),
	messages: fc.array(message, { maxLength: 4 }),
	summary: nullable(text),
	categories: nullable(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), text, { maxKeys: 2 })),
	lastUpdated: time,
	turnsSinceRefresh: fc.integer({ min: 0, max: 50 }),
	digest: nullable(fc.array(digestLine, { maxLength: 3 }))
});
/** A directory lists entries by their scope keys, as the engine writes them. */
const scopeKey = fc.stringMatching(/^shortterm:(user|server):\d{1,20}:\d{1,20}(:[a-z]{1,8})?$/);
const listing = fc.record({
	key: scopeKey,
	scope: fc.constantFrom('user', 'server'),
	serverId: id,
	channelId: id,
	parentChannelId: nullable(id),
	personaId: nullable(id),
	lineageId: nullable(id),
	lastUpdated: time,
	expiresAt: time
});
const listings = fc.dictionary(scopeKey, listing, { maxKeys: 3 });

/** Any JSON-like value, to put where a field was. */
const junk = fc.oneof(
	fc.constant(null),
	fc.boolean(),
	fc.double(),
	fc.integer(),
	fc.string({ maxLength: 5 }),
	fc.constant([]),
	fc.constant({}),
	fc.constant(-1),
	fc.constant(''),
	fc.constant(LATEST_TIME + 1)
);

/** `value` with one field, somewhere inside it, replaced by junk, removed, or added, as a store would read it back. */
function damaged(value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
	return fc.tuple(value, fc.nat(), junk, fc.constantFrom('replace', 'remove', 'add')).map(([original, pick, replacement, how]) => {
		const copy = structuredClone(original) as Record<string, unknown>;
		const containers: Record<string, unknown>[] = [];
		const walk = (node: unknown) => {
			if (typeof node !== 'object' || node === null) return;
			containers.push(node as Record<string, unknown>);
			for (const child of Object.values(node)) walk(child);
		};
		walk(copy);
		const target = containers[pick % containers.length]!;
		const keys = Object.keys(target);
		const key = keys.length > 0 ? keys[pick % keys.length]! : 'extra';
		if (how === 'replace') target[key] = replacement;
		else if (how === 'remove') delete target[key];
		else target[`unknown${pick % 3}`] = replacement;
		// A stored value went through JSON: no holes, no undefined, no NaN.
		return JSON.parse(JSON.stringify(copy)) as unknown;
	});
}

const shapes: [string, (value: unknown) => boolean, z.ZodType, fc.Arbitrary<unknown>][] = [
	['a short-term entry', isPlainEntry, ShortTermEntrySchema, entry],
	['a directory', isPlainListings, ListingsSchema, listings],
	['an archive chunk', isPlainChunk, ArchiveChunkSchema, fc.array(message, { maxLength: 5 })]
];

describe.each(shapes)('the check at a glance for %s', (_, plain, schema, valid) => {
	it('GIVEN a value as the engine writes it THEN it accepts it, and zod reads the same value', () => {
		fc.assert(
			fc.property(valid, (value) => {
				expect(plain(value)).toBe(true);
				expect(schema.parse(value)).toEqual(value);
			}),
			{ numRuns: 300 }
		);
	});

	it('GIVEN a damaged value THEN it accepts it only when zod parses it to an equal value', () => {
		fc.assert(
			fc.property(damaged(valid), (value) => {
				if (!plain(value)) return;
				const parsed = schema.safeParse(value);
				expect(parsed.success).toBe(true);
				expect(parsed.data).toEqual(value);
			}),
			{ numRuns: 2000 }
		);
	});

	it('GIVEN a damaged value THEN it refuses at least the damage that zod would repair or drop', () => {
		let refused = 0;
		fc.assert(
			fc.property(damaged(valid), (value) => {
				if (!plain(value)) refused++;
			}),
			{ numRuns: 500 }
		);
		expect(refused).toBeGreaterThan(100);
	});
});

describe('a stored record with an own `__proto__` key', () => {
	it('GIVEN one read from JSON THEN the check leaves it to zod, which would take that key for the prototype', () => {
		const listed = { key: 'shortterm:user:1:2', scope: 'user', serverId: '3', channelId: '2' };
		const value = JSON.parse(
			`{"__proto__": ${JSON.stringify({ ...listed, parentChannelId: null, personaId: null, lineageId: null, lastUpdated: 1, expiresAt: 2 })}}`
		) as unknown;
		expect(Object.hasOwn(value as object, '__proto__')).toBe(true);
		expect(isPlainListings(value)).toBe(false);
	});
});
