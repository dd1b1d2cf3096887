import { z } from 'zod';
import { MemoryError } from '../errors';
import { IdSchema, PersonaIdSchema, ServerIdSchema } from './primitives';
import { safeParseInput } from './readInput';
import { shownValue } from './shownValue';

/**
 * Parses `value` or rejects with an `INVALID_INPUT` error that says what was wrong, naming the field: also for a value that
 * throws when read (a getter, a Proxy's trap, an iterator).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
	const parsed = safeParseInput(schema, value, what);
	if (!parsed.success) throw new MemoryError('INVALID_INPUT', `Invalid ${what}: ${z.prettifyError(parsed.error)}`);
	return parsed.data;
}

/** The ids whose names carry a rule of their own (see primitives.ts); any other name is a plain id. */
const ID_SCHEMAS: Readonly<Record<string, z.ZodType<string>>> = { serverId: ServerIdSchema, personaId: PersonaIdSchema };

/** Rejects with `INVALID_INPUT` naming `name` unless `value` is an id (see {@link IdSchema}; a server or persona id by its rule). */
export function assertId(name: string, value: unknown): asserts value is string {
	// Only a string is parsed: zod's message on any other value reads it.
	if (typeof value !== 'string' || !IdSchema.safeParse(value).success)
		throw new MemoryError('INVALID_INPUT', `${name} must be an id (1 to 64 letters, digits, "_", "." or "-"); got ${shownValue(value)}.`);
	const parsed = ID_SCHEMAS[name]?.safeParse(value);
	if (parsed && !parsed.success) {
		throw new MemoryError('INVALID_INPUT', `${name} ${shownValue(value)} is refused: ${parsed.error.issues[0]!.message}.`);
	}
}
