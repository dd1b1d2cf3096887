/**
 * Background indexing waits, before each of its slices, for a moment no reply's call (recordTurn, buildContext) runs,
 * and no longer than its longest wait (ReplyCalls). The clock is Vitest's: these tests advance it, so they time nothing.
 */
import { RecordStore } from '../../src/engine/records/RecordStore';
import Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Archive } from '../../src/engine/archive/Archive';
import { ReplyCalls } from '../../src/engine/ReplyCalls';
import type { StoredMessage } from '../../src/engine/schemas';
import { MemoryStore } from '../../src/engine/store/MemoryStore';

/** A call that settles when the test says so. */
function pendingCall() {
	let settle!: (failed?: boolean) => void;
	const done = new Promise<string>((resolve, reject) => {
		settle = (failed = false) => (failed ? reject(new Error('the store went away')) : resolve('answered'));
	});
	return { call: () => done, settle };
}

/** Whether `promise` has resolved, looked at whenever the test asks. */
function watched(promise: Promise<unknown>) {
	const state = { resolved: false };
	void promise.then(() => (state.resolved = true));
	return state;
}

describe('ReplyCalls.quiet, which background work awaits before each slice', () => {
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	it('GIVEN no call runs THEN it resolves in the next turn of the event loop', async () => {
		const quiet = watched(new ReplyCalls().quiet(50));
		await vi.advanceTimersByTimeAsync(0);
		expect(quiet.resolved).toBe(true);
	});

	it('GIVEN a call runs THEN it does not resolve while the call runs, and resolves once it settles', async () => {
		const calls = new ReplyCalls();
		const { call, settle } = pendingCall();
		const running = calls.run(call);
		const quiet = watched(calls.quiet(1_000));
		// Many turns of the event loop, well within the longest wait.
		await vi.advanceTimersByTimeAsync(900);
		expect(quiet.resolved).toBe(false);
		settle();
		await expect(running).resolves.toBe('answered');
		await vi.advanceTimersByTimeAsync(0);
		expect(quiet.resolved).toBe(true);
	});

	it('GIVEN two calls run THEN it waits for both, and a call that fails counts as settled', async () => {
		const calls = new ReplyCalls();
		const first = pendingCall();
		const second = pendingCall();
		const runs = [calls.run(first.call), calls.run(second.call)];
		const quiet = watched(calls.quiet(1_000));
		first.settle(true);
		await expect(runs[0]).rejects.toThrow('the store went away');
		await vi.advanceTimersByTimeAsync(100);
		expect(quiet.resolved).toBe(false);
		second.settle();
		await vi.advanceTimersByTimeAsync(0);
		expect(quiet.resolved).toBe(true);
	});

	it('GIVEN no call runs WHEN one starts before the next turn of the event loop THEN the call goes first', async () => {
		const calls = new ReplyCalls();
		const quiet = watched(calls.quiet(1_000));
		const { call, settle } = pendingCall();
		void calls.run(call);
		await vi.advanceTimersByTimeAsync(100);
		expect(quiet.resolved).toBe(false);
		settle();
		await vi.advanceTimersByTimeAsync(0);
		expect(quiet.resolved).toBe(true);
	});

	it('GIVEN a call that never settles THEN it resolves after its longest wait, not before', async () => {
		const calls = new ReplyCalls();
		void calls.run(pendingCall().call);
		const quiet = watched(calls.quiet(50));
		await vi.advanceTimersByTimeAsync(49);
		expect(quiet.resolved).toBe(false);
		// The wait ends at 50 ms, and the slice starts in the turn of the event loop after (Vitest's clock runs it a millisecond on).
		await vi.advanceTimersByTimeAsync(2);
		expect(quiet.resolved).toBe(true);
	});

	it('GIVEN calls that start one after the other without a pause THEN it still resolves after its longest wait', async () => {
		const calls = new ReplyCalls();
		let busy = true;
		// A bot that is never idle: each call is followed at once by the next.
		const next = async (): Promise<void> => {
			while (busy) await calls.run(() => new Promise<void>((resolve) => setTimeout(resolve, 5)));
		};
		void next();
		const quiet = watched(calls.quiet(50));
		await vi.advanceTimersByTimeAsync(45);
		expect(quiet.resolved).toBe(false);
		await vi.advanceTimersByTimeAsync(10);
		expect(quiet.resolved).toBe(true);
		busy = false;
		await vi.advanceTimersByTimeAsync(10);
	});
});

describe('GIVEN a channel’s index cached AND a reply’s call running', () => {
	const DAY = 24 * 3_600_000;
	const NOW = Date.UTC(2026, 2, 2, 18, 0, 0);
	const SCOPE = 'scope';
	/** A message of `chars` characters of chat. */
	const message = (at: number, chars: number): StoredMessage => ({
		id: `m${String(at).padStart(3, '0')}`,
		role: 'user',
		authorId: 'u1',
		authorName: 'Maya',
		text: `message ${at} `.padEnd(chars, 'and we talked about the river '),
		ts: NOW + at
	});

	async function cachedArchive() {
		const store = await MemoryStore.open({ storeUrl: 'memory:', namespace: 'memory', keyv: new Keyv({ store: new Map() }) });
		const calls = new ReplyCalls();
		const archive = new Archive(new RecordStore(store), { retentionMs: 30 * DAY, replyCalls: calls });
		await archive.append(SCOPE, [message(0, 40)], NOW);
		const index = (await archive.open(SCOPE))!;
		return { archive, calls, index };
	}

	it('WHEN a turn of fifty 4,000-character messages is appended THEN the call indexes none of them, all wait until no call runs', async () => {
		const { archive, calls, index } = await cachedArchive();
		const turn = Array.from({ length: 50 }, (_, at) => message(at + 1, 4_000));
		const reply = pendingCall();
		const running = calls.run(async () => {
			// The store here answers in promises alone: no turn of the event loop passes until this call awaits the reply.
			await archive.append(SCOPE, turn, NOW);
			const afterAppend = index.size;
			// A context opening the index indexes what waits only in a short step (a turn of chat): not a long message.
			await archive.open(SCOPE);
			return [afterAppend, index.size, await reply.call()];
		});
		await new Promise((resolve) => setImmediate(resolve));
		expect(index.size).toBe(1);
		reply.settle();
		expect(await running).toEqual([1, 1, 'answered']);
		await archive.indexingIdle();
		expect(index.size).toBe(51);
	});
	it('WHEN a turn of five short messages is appended while a call runs THEN the call indexes them at once', async () => {
		const { archive, calls, index } = await cachedArchive();
		const turn = Array.from({ length: 5 }, (_, at) => message(at + 1, 120));
		const reply = pendingCall();
		const running = calls.run(async () => {
			await archive.append(SCOPE, turn, NOW);
			return [index.size, await reply.call()];
		});
		reply.settle();
		expect(await running).toEqual([6, 'answered']);
	});
});
