/** The Keyv store calls a {@link slowStore} delays and counts: every call that reaches the storage. */
const STORE_CALLS = new Set([
	'get',
	'getMany',
	'set',
	'setMany',
	'delete',
	'deleteMany',
	'has',
	'hasMany',
	'clear',
	'compareAndSet',
	'compareAndSetMany'
]);

/** What a slow store reports: its calls so far, by method, and the delay it adds to each. */
export interface SlowStoreControl {
	/** Milliseconds added before each call; change it at any time (0 while seeding, 20 while measuring). */
	delayMs: number;
	/** Calls so far, by method. */
	readonly calls: Map<string, number>;
	/** Every call so far. */
	total(): number;
	/** Forgets the calls counted so far. */
	reset(): void;
}

/**
 * A Keyv store that answers every call `delayMs` later, as a managed Redis or PostgreSQL a few milliseconds to tens of
 * milliseconds away does, and counts the calls: wrap the engine's own SQLite store in it and pass it to the engine as
 * its `keyv`. Everything else (its compare-and-set, its iterator, its checkpoint) is the wrapped store's.
 *
 * @example
 * const { store, control } = slowStore(new SqliteAdapter('memory.sqlite'), 20);
 * const memory = await MemoryEngine.open({ keyv: new Keyv({ store, namespace: 'memory' }) });
 */
export function slowStore<T extends object>(inner: T, delayMs: number): { store: T; control: SlowStoreControl } {
	const calls = new Map<string, number>();
	const control: SlowStoreControl = {
		delayMs,
		calls,
		total: () => [...calls.values()].reduce((sum, count) => sum + count, 0),
		reset: () => calls.clear()
	};
	const store = new Proxy(inner, {
		get(target, property, receiver) {
			const value = Reflect.get(target, property, receiver) as unknown;
			if (typeof value !== 'function' || !STORE_CALLS.has(String(property))) return value;
			return async (...args: unknown[]) => {
				calls.set(String(property), (calls.get(String(property)) ?? 0) + 1);
				if (control.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, control.delayMs));
				return (value as (...parameters: unknown[]) => unknown).apply(target, args);
			};
		}
	});
	return { store, control };
}
