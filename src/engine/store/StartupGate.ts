import { AsyncLocalStorage } from 'node:async_hooks';
import { MemoryError } from '../errors';

/**
 * Memory kept off while the store has not answered since start-up (`MEMORY_START_WITHOUT_STORE`): every call fails at
 * once as `STORE_UNAVAILABLE`, as during an outage, except the start-up checks (the encryption key against the store),
 * which must pass before any value is read or written.
 */
export class StartupGate {
	/** Why memory is off: the store's failure at start-up; null once it is on. */
	private unreached: MemoryError | null = null;
	private readonly checking = new AsyncLocalStorage<true>();

	/** Whether memory is off until the store answers and the start-up checks pass. */
	public get closed(): boolean {
		return this.unreached !== null;
	}

	/** The store's failure at start-up, while memory is off. */
	public get cause(): MemoryError | null {
		return this.unreached;
	}

	/** Turns memory off, for the store's failure at start-up. */
	public close(unreached: MemoryError): void {
		this.unreached = unreached;
	}

	public open(): void {
		this.unreached = null;
	}

	/**
	 * A rejection for a call while memory is off: the outage the store's health already counts, so the call never reaches
	 * the adapter. Null when it may go on (memory is on, or the call is a start-up check's).
	 */
	public refusal(operation: string): Promise<never> | null {
		if (this.unreached === null || this.checking.getStore()) return null;
		const message = `Memory is off until the store answers, so ${operation} did not run: ${this.unreached.message}`;
		return Promise.reject(new MemoryError('STORE_UNAVAILABLE', message));
	}

	/** Runs the start-up checks, whose calls go through while memory is off. */
	public checks<T>(task: () => Promise<T>): Promise<T> {
		return this.checking.run(true, task);
	}
}
