import { z } from 'zod';
import { thrownText } from './shownValue';

/**
 * Any iterable object (an array, a Set, a Map's keys, a generator) of at most `cap` items matching `item`, read into an
 * array. Reading stops at the item past `cap`, which is refused, so an endless or huge iterable costs no more than a full
 * one; an iterable that throws while it is read is refused too. A string is not taken for a list of characters.
 * @param items What the items are, for the messages: `channel ids` gives "at most 100000 channel ids".
 */
export function iterableOf<T extends z.ZodType>(item: T, cap: number, items: string) {
	return z
		.unknown()
		.transform((value, context) => {
			const refuse = (message: string) => {
				context.issues.push({ code: 'custom', message, input: value });
				return z.NEVER;
			};
			if (typeof value !== 'object' || value === null) return refuse(`expected an iterable of ${items} (an array, a Set)`);
			const read: unknown[] = [];
			try {
				const iterator = (value as Partial<Iterable<unknown>>)[Symbol.iterator];
				if (typeof iterator !== 'function') return refuse(`expected an iterable of ${items} (an array, a Set)`);
				// for…of closes the iterator when reading stops at the cap (a generator's `finally` runs).
				for (const each of { [Symbol.iterator]: () => iterator.call(value) as Iterator<unknown> }) {
					if (read.length === cap) return refuse(`at most ${cap} ${items}`);
					read.push(each);
				}
			} catch (error) {
				return refuse(`the ${items} could not be read (${thrownText(error)})`);
			}
			return read;
		})
		.pipe(z.array(item));
}
