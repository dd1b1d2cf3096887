import { z } from 'zod';
import { MemoryError } from '../errors';
import { IdSchema } from './primitives';

/** Parses `value` or rejects with an `INVALID_INPUT` error that says what was wrong. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
	const parsed = schema.safeParse(value);
	if (!parsed.success) throw new MemoryError('INVALID_INPUT', `Invalid ${what}: ${z.prettifyError(parsed.error)}`);
	return parsed.data;
}

/** Rejects with `INVALID_INPUT` naming `name` unless `value` is an id (see {@link IdSchema}). */
export function assertId(name: string, value: unknown): asserts value is string {
	const parsed = IdSchema.safeParse(value);
	if (!parsed.success)
		throw new MemoryError('INVALID_INPUT', `${name} must be an id (1 to 64 letters, digits, "_", "." or "-"); got ${JSON.stringify(value)}.`);
}
