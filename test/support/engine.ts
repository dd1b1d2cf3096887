import { afterEach, beforeEach } from 'vitest';
import type { MemoryConfig, MemoryEngine } from '../../src';
import { MemoryStore } from '../../src/engine/store/MemoryStore';
import { type Backend, openEngine, TestClock } from './backends';

/** What each test gets: a fresh engine, a second handle on the same store to read it around the engine, and where it lives. */
export interface EngineUnderTest {
	engine: MemoryEngine;
	store: MemoryStore;
	storeUrl: string;
	namespace: string;
}

/**
 * Registers hooks that, before each test on `backend` (skipped with its reason when it is not
 * configured), reset `clock` and open a fresh engine and a raw store on the same data, and after it
 * close both and remove what they wrote. The returned object is filled in before each test.
 */
export function freshEngineEachTest(backend: Backend, clock: TestClock, config: Partial<MemoryConfig> = {}): EngineUnderTest {
	const current = {} as EngineUnderTest;
	let dispose: (() => Promise<void>) | undefined;
	beforeEach(async ({ skip }) => {
		if (backend.skipReason) skip(backend.skipReason);
		clock.current = new TestClock().current;
		const opened = await openEngine(backend, { now: clock.now, config });
		dispose = opened.dispose;
		const store = await MemoryStore.open({ storeUrl: opened.storeUrl, namespace: opened.namespace });
		Object.assign(current, { engine: opened.engine, store, storeUrl: opened.storeUrl, namespace: opened.namespace });
	});
	afterEach(async () => {
		// A test may have closed the store itself.
		await current.store?.close().catch(() => undefined);
		await dispose?.();
	});
	return current;
}
