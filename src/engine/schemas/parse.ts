import { z } from 'zod';
import { MemoryError } from '../errors';
import { IdSchema, PersonaIdSchema, ServerIdSchema } from './primitives';

/** Parses `value` or rejects with an `INVALID_INPUT` error that says what was wrong. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
	const parsed = schema.safeParse(value);
	if (!parsed.success) throw new MemoryError('INVALID_INPUT', `Invalid ${what}: ${z.prettifyError(parsed.error)}`);
	return parsed.data;
}

/** The ids whose names carry a rule of their own (see primitives.ts); any other name is a plain id. */
const ID_SCHEMAS: Readonly<Record<string, z.ZodType<string>>> = { serverId: ServerIdSchema, personaId: PersonaIdSchema };

/** Rejects with `INVALID_INPUT` naming `name` unless `value` is an id (see {@link IdSchema}; a server or persona id by its rule). */
export function assertId(name: string, value: unknown): asserts value is string {
	if (!IdSchema.safeParse(value).success)
		throw new MemoryError('INVALID_INPUT', `${name} must be an id (1 to 64 letters, digits, "_", "." or "-"); got ${JSON.stringify(value)}.`);
	const parsed = ID_SCHEMAS[name]?.safeParse(value);
	if (parsed && !parsed.success) {
		throw new MemoryError('INVALID_INPUT', `${name} ${JSON.stringify(value)} is refused: ${parsed.error.issues[0]!.message}.`);
	}
}
