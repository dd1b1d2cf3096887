import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { MemoryConfig, MemoryEngine } from '../../src';
import { type Backend, openEngine, TestClock } from './backends';
import { ChatEndpoint } from './chat-endpoint';
import { StoreInspection } from './store-inspection';

/** What each test gets: a fresh engine, a second handle on the same store to look at it around the engine, and where it lives. */
export interface EngineUnderTest {
	engine: MemoryEngine;
	inspect: StoreInspection;
	storeUrl: string;
	namespace: string;
}

/**
 * Registers hooks that, before each test on `backend` (skipped with its reason when it is not
 * configured), reset `clock` and open a fresh engine and a store inspection on the same data, and
 * after it close both and remove what they wrote. The returned object is filled in before each test.
 */
export function freshEngineEachTest(backend: Backend, clock: TestClock, config: Partial<MemoryConfig> = {}): EngineUnderTest {
	const current = {} as EngineUnderTest;
	let dispose: (() => Promise<void>) | undefined;
	beforeEach(async (context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		clock.current = new TestClock().current;
		const opened = await openEngine(backend, { now: clock.now, config });
		dispose = opened.dispose;
		const inspect = await StoreInspection.open({ storeUrl: opened.storeUrl, namespace: opened.namespace });
		Object.assign(current, { engine: opened.engine, inspect, storeUrl: opened.storeUrl, namespace: opened.namespace });
	});
	afterEach(async () => {
		// A test may have closed the store itself.
		await current.inspect?.close().catch(() => undefined);
		await dispose?.();
	});
	return current;
}

/**
 * {@link freshEngineEachTest} with a background summarizer: a scripted chat endpoint on 127.0.0.1 (started once for the
 * describe block), a window of two messages, and a summary asked for once four digest lines are new. `endpoint()` is the
 * endpoint, to script its answers.
 */
export function summarizedEngineEachTest(backend: Backend, clock: TestClock): EngineUnderTest & { endpoint: () => ChatEndpoint } {
	let endpoint: ChatEndpoint | undefined;
	const config: { -readonly [K in keyof MemoryConfig]?: MemoryConfig[K] } = {
		maxMessagesPerChannel: 2,
		llmMinNewDigestLines: 4,
		llmApiKey: 'sk-test'
	};
	beforeAll(async () => {
		endpoint = await ChatEndpoint.start();
		config.llmBaseUrl = endpoint.baseUrl;
	});
	afterAll(() => endpoint?.stop());
	const current = freshEngineEachTest(backend, clock, config) as EngineUnderTest & { endpoint: () => ChatEndpoint };
	current.endpoint = () => endpoint!;
	return current;
}

/**
 * Resolves once what deletions on Discord left in an SQLite store's write-ahead log is gone: a deletion resolves first,
 * and its emptying of the log follows within a second (an erasure's within the call).
 */
export function logEmptied(engine: MemoryEngine): Promise<void> {
	return (engine as unknown as { parts: { erasures: { logEmptied(): Promise<void> } } }).parts.erasures.logEmptied();
}

/**
 * Resolves once no SQLite file keeps what was forgotten: the log is emptied within the erasure's call and within a
 * second of a deletion, the file rewritten within `MEMORY_SQLITE_REWRITE_SECONDS` of either; this runs now what waits.
 */
export function filesSettled(engine: MemoryEngine): Promise<void> {
	return (engine as unknown as { parts: { erasures: { filesSettled(): Promise<void> } } }).parts.erasures.filesSettled();
}
