/** Characters of a string a message quotes by default; the rest is cut with `…`. */
const SHOWN_CHARS = 100;

/**
 * `value` as an error message may quote it, whatever it is: a string quoted (cut after `chars` characters), a number, a BigInt (`12n`), `null`,
 * `undefined`; a symbol, a function, an array or an object by kind alone. It never reads an object (a getter, a Proxy's
 * trap, `toString` or `Symbol.toPrimitive` may throw) and never throws.
 * @example
 * shownValue(10n); // '10n'
 * shownValue(new Proxy({}, { get: () => { throw new Error(); } })); // 'an object'
 */
export function shownValue(value: unknown, chars = SHOWN_CHARS): string {
	switch (typeof value) {
		case 'string':
			return JSON.stringify(value.length > chars ? `${value.slice(0, chars)}…` : value);
		case 'bigint':
			// A BigInt of a million digits would take longer to print than to refuse.
			return value > -(10n ** 30n) && value < 10n ** 30n ? `${value}n` : 'a BigInt of more than 30 digits';
		case 'symbol':
			return 'a symbol';
		case 'function':
			return 'a function';
		case 'object':
			if (value === null) return 'null';
			try {
				return Array.isArray(value) ? 'an array' : 'an object';
			} catch {
				// A revoked Proxy.
				return 'an object';
			}
		default:
			// A number, a boolean or undefined.
			return String(value);
	}
}

/** What a thrown value says, for a message: an error's own message (cut), else the value as {@link shownValue} shows it. */
export function thrownText(thrown: unknown): string {
	try {
		const message = thrown instanceof Error ? thrown.message : undefined;
		if (typeof message === 'string') return message.length > SHOWN_CHARS ? `${message.slice(0, SHOWN_CHARS)}…` : message;
	} catch {
		// A Proxy as the thrown value, or a throwing `message` getter: said by kind below.
	}
	return shownValue(thrown);
}
