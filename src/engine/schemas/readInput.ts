import { z } from 'zod';
import { MemoryError } from '../errors';
import { thrownText } from './shownValue';

/** How deep, and how many fields, the search for what threw goes: enough for every input of the engine, bounded for any value. */
const SEARCH_DEPTH = 4;
const SEARCH_FIELDS = 10_000;

/**
 * `read()`, which reads `value`, an input given as `what`; when reading throws (a getter, a Proxy's trap, an iterator), an
 * `INVALID_INPUT` error naming the field that threw, such as `Invalid turn: history[2].text could not be read (…)`.
 * A `MemoryError` passes as it is.
 * @param fields The fields `value` should have, tried first: a Proxy may list no keys and throw on every read.
 */
export function readInput<T>(what: string, value: unknown, read: () => T, fields: readonly string[] = []): T {
	try {
		return read();
	} catch (error) {
		if (error instanceof MemoryError) throw error;
		const path = unreadablePath(value, fields);
		throw new MemoryError('INVALID_INPUT', `Invalid ${what}: ${path || 'it'} could not be read (${thrownText(error)}).`, { cause: error });
	}
}

/**
 * `schema.safeParse(value)` for an input given as `what`, whose issues' messages can be read whatever `value` is: zod's
 * own message for a value of the wrong type reads the value's prototype, which a Proxy may refuse. A value that throws
 * when read is refused as {@link readInput} says.
 */
export function safeParseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.ZodSafeParseResult<z.output<S>> {
	const fields = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
	return readInput(what, value, () => schema.safeParse(value, { error: typeIssue }), fields);
}

/** zod's words for a value of the wrong type ("Invalid input: expected string, received object"), read safely; other issues keep zod's. */
function typeIssue(issue: z.core.$ZodRawIssue): string | undefined {
	if (issue.code !== 'invalid_type') return undefined;
	const { input } = issue;
	let received: string;
	try {
		received = typeof input === 'number' && !Number.isFinite(input) ? String(input) : z.core.util.parsedType(input);
	} catch {
		received = typeof input;
	}
	return `Invalid input: expected ${issue.expected}, received ${received}`;
}

/** The first field of `value` whose reading throws, as `history[2].text`; '' for `value` itself or when none throws again. */
function unreadablePath(value: unknown, fields: readonly string[]): string {
	let budget = SEARCH_FIELDS;
	const seen = new Set<object>();
	const search = (current: unknown, path: string, depth: number, first: readonly string[]): string | null => {
		if (typeof current !== 'object' || current === null || depth > SEARCH_DEPTH || seen.has(current)) return null;
		seen.add(current);
		const within = (keys: readonly string[]): string | null => {
			for (const key of keys) {
				if (--budget < 0) return null;
				const at = /^\d+$/.test(key) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
				let field: unknown;
				try {
					field = (current as Record<string, unknown>)[key];
				} catch {
					return at;
				}
				const inner = search(field, at, depth + 1, []);
				if (inner !== null) return inner;
			}
			return null;
		};
		const found = within(first);
		if (found !== null) return found;
		let keys: string[];
		try {
			keys = Object.keys(current).filter((key) => !first.includes(key));
		} catch {
			return path;
		}
		return within(keys);
	};
	return search(value, '', 0, fields) ?? '';
}
