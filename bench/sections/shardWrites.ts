import { AsyncLocalStorage } from 'node:async_hooks';
import type { MemoryEngine } from '../../src/engine';

/** What one process wrote to one key while counting: writes, compare-and-sets that found the key changed, and how. */
export type KeyWrites = [key: string, writes: number, retries: number, operations: string[]];

/** The adapter methods that write, as the engine's adapters name them. */
const WRITE_METHODS = ['set', 'setMany', 'delete', 'deleteMany', 'compareAndSet', 'compareAndSetMany'];
/** The writes of an adapter's native sets (`adapter.sets`, where it has them): blind adds and removals, no compare-and-set. */
const SET_WRITE_METHODS = ['add', 'remove', 'delete', 'writeWith'];

/**
 * Counts what the engine writes to its store, on the adapter instance itself (its compare-and-set stays the native one):
 * every key written, each compare-and-set, and each one that returned false, after which the engine reads the key again
 * and retries. `src/` is left as it is; the adapter is found through the engine's parts (see {@link findAdapter}).
 */
export class ShardWrites {
	public compareAndSets = 0;
	public retries = 0;
	/** Write calls by method name. */
	public readonly calls: Record<string, number> = {};
	private counting = false;
	private readonly keys = new Map<string, { writes: number; retries: number; operations: Set<string> }>();
	/** Set inside a counted call, so that an adapter method calling another (SQLite's compareAndSet) counts once. */
	private readonly inside = new AsyncLocalStorage<true>();

	public constructor(
		engine: MemoryEngine,
		/** The namespace's prefix on the adapter's keys (`<namespace>:`), left off the keys reported. */
		private readonly prefix: string
	) {
		const adapter = findAdapter(engine);
		for (const name of WRITE_METHODS) this.wrap(adapter, name, name);
		const sets = adapter.sets as Record<string, unknown> | undefined;
		if (sets && typeof sets === 'object') for (const name of SET_WRITE_METHODS) this.wrap(sets, name, `sets.${name}`);
	}

	/** Counts from now on (the engine's opening writes are not the hot path). */
	public start(): void {
		this.counting = true;
	}

	public stop(): void {
		this.counting = false;
	}

	public written(): KeyWrites[] {
		return [...this.keys].map(([key, { writes, retries, operations }]) => [key, writes, retries, [...operations]]);
	}

	private wrap(target: Record<string, unknown>, name: string, operation: string): void {
		const original = target[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
		if (typeof original !== 'function') return;
		target[name] = (...args: unknown[]) => {
			if (!this.counting || this.inside.getStore()) return original.apply(target, args);
			return this.inside.run(true, async () => {
				const result = await original.apply(target, args);
				this.count(operation, args, result);
				return result;
			});
		};
	}

	private count(name: string, args: unknown[], result: unknown): void {
		this.calls[name] = (this.calls[name] ?? 0) + 1;
		if (name === 'compareAndSet' || name === 'compareAndSetMany') {
			const writes = name === 'compareAndSet' ? [{ key: args[0] as string }] : (args[0] as { key: string }[]);
			const landed = name === 'compareAndSet' ? [result as boolean] : (result as boolean[]);
			writes.forEach(({ key }, index) => this.note(key, name, !landed[index]));
			this.compareAndSets += writes.length;
			this.retries += landed.filter((written) => !written).length;
			return;
		}
		// A set's writes name keys in every argument (writeWith: rows, then adds); the adapter's name them first, then values.
		const named = name.startsWith('sets.') ? args : args.slice(0, 1);
		for (const key of named.flatMap(keysOf)) this.note(key, name, false);
	}

	private note(storeKey: string, operation: string, retried: boolean): void {
		const key = storeKey.startsWith(this.prefix) ? storeKey.slice(this.prefix.length) : storeKey;
		let counted = this.keys.get(key);
		if (!counted) this.keys.set(key, (counted = { writes: 0, retries: 0, operations: new Set() }));
		counted.writes++;
		if (retried) counted.retries++;
		counted.operations.add(operation);
	}
}

/** The keys a write names in its first argument: a key, a list of keys, or entries carrying a `key`. */
function keysOf(first: unknown): string[] {
	if (typeof first === 'string') return [first];
	if (Array.isArray(first)) return first.flatMap(keysOf);
	const key = (first as { key?: unknown } | null)?.key;
	return typeof key === 'string' ? [key] : [];
}

/**
 * The Keyv adapter the engine writes through, found by walking its parts (private fields included) for a Keyv whose
 * store has a compare-and-set: by shape rather than by a path of field names, which the store's refactors move.
 */
export function findAdapter(engine: MemoryEngine): Record<string, unknown> {
	const seen = new Set<object>();
	let layer: object[] = [engine];
	for (let depth = 0; depth < 5 && layer.length > 0; depth++) {
		const next: object[] = [];
		for (const holder of layer) {
			for (const value of Object.values(holder)) {
				if (!value || typeof value !== 'object' || seen.has(value)) continue;
				seen.add(value);
				const { store, get } = value as { store?: { compareAndSet?: unknown }; get?: unknown };
				if (typeof get === 'function' && typeof store?.compareAndSet === 'function') return store as Record<string, unknown>;
				next.push(value);
			}
		}
		layer = next;
	}
	throw new Error('The engine has no store adapter with a compare-and-set in reach (a Keyv passed by the host has none).');
}
