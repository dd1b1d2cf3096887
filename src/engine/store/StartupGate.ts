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

	/** The error a call meets while memory is off; null when it may go on (memory is on, or the call is a start-up check's). */
	public refusal(operation: string): MemoryError | null {
		if (this.unreached === null || this.checking.getStore()) return null;
		return new MemoryError('STORE_UNAVAILABLE', `Memory is off until the store answers, so ${operation} did not run: ${this.unreached.message}`);
	}

	/** Runs the start-up checks, whose calls go through while memory is off. */
	public checks<T>(task: () => Promise<T>): Promise<T> {
		return this.checking.run(true, task);
	}
}
