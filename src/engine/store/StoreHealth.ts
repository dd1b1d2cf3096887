import { MemoryError, storeError } from '../errors';
import type { StoreHealthChange, StoreHealthCounters } from '../schemas/storeHealth';
import { StartupGate } from './StartupGate';

export type { StoreHealthChange, StoreHealthCounters };

/**
 * Follows the store's reachability from the calls themselves, so that an outage is told once when it
 * starts and once when it ends, however many calls fail meanwhile. Calls are numbered as they start:
 * an answer to a call that started before the last change (a failure in flight when the store came
 * back, a success in flight when it went) tells nothing new and changes nothing.
 */
export class StoreHealth {
	public readonly counters: StoreHealthCounters = { available: true, outages: 0, unavailableCalls: 0, lastOutage: null };
	/** Memory off until the store answers, when it could not be reached at start-up (`MEMORY_START_WITHOUT_STORE`). */
	public readonly gate = new StartupGate();
	private readonly listeners = new Set<(change: StoreHealthChange) => void>();
	private started = 0;
	private changedAt = 0;

	/** Calls `listener` on every change; returns the function that stops it. */
	public onChange(listener: (change: StoreHealthChange) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Numbers a call as it starts. */
	/**
	 * One adapter call, failing with a `MemoryError`. It fails as `STORE_UNAVAILABLE` after `timeoutMs` (none: null), so
	 * that a server that stopped answering (frozen, or cut off without a reset) never holds a reply; and its outcome tells
	 * the store's health.
	 */
	public async call<T>(operation: string, task: () => Promise<T>, timeoutMs: number | null): Promise<T> {
		// While memory is off since start-up, a call never reaches the adapter: the outage is already counted.
		const refusal = this.gate.refusal(operation);
		if (refusal) return refusal;
		const call = this.begin();
		let timer: NodeJS.Timeout | undefined;
		const deadline =
			timeoutMs === null
				? []
				: [
						new Promise<never>((_, reject) => {
							const message = `Memory store did not answer ${operation} within ${timeoutMs} ms.`;
							timer = setTimeout(() => reject(new MemoryError('STORE_UNAVAILABLE', message)), timeoutMs);
						})
					];
		try {
			const result = await Promise.race([task(), ...deadline]);
			this.succeeded(call);
			return result;
		} catch (error) {
			throw this.failed(call, storeError(operation, error));
		} finally {
			clearTimeout(timer);
		}
	}

	public begin(): number {
		return ++this.started;
	}

	public succeeded(call: number): void {
		if (this.counters.available || call <= this.changedAt) return;
		const outage = this.counters.lastOutage!;
		outage.endedAt = Date.now();
		this.counters.available = true;
		this.changedAt = this.started;
		this.tell({ available: true, at: outage.endedAt, downMs: outage.endedAt - outage.startedAt, failedCalls: outage.failedCalls });
	}

	/** Counts a failed call; returns its error. Only `STORE_UNAVAILABLE` says anything about reachability. */
	public failed(call: number, error: MemoryError): MemoryError {
		if (error.code !== 'STORE_UNAVAILABLE') return error;
		this.counters.unavailableCalls++;
		if (!this.counters.available || call <= this.changedAt) {
			if (this.counters.lastOutage) this.counters.lastOutage.failedCalls++;
			return error;
		}
		const at = Date.now();
		this.counters.available = false;
		this.counters.outages++;
		this.counters.lastOutage = { startedAt: at, endedAt: null, failedCalls: 1, firstError: error.message };
		this.changedAt = this.started;
		this.tell({ available: false, at, error });
		return error;
	}

	private tell(change: StoreHealthChange): void {
		for (const listener of this.listeners) {
			try {
				listener(change);
			} catch {
				// A listener's failure must not turn into the store call's.
			}
		}
	}
}
