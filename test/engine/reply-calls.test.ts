/**
 * Background indexing waits, before each of its slices, for a moment no reply's call (recordTurn, buildContext) runs,
 * and no longer than its longest wait (ReplyCalls). The clock is Vitest's: these tests advance it, so they time nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReplyCalls } from '../../src/engine/ReplyCalls';

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
