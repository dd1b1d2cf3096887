import type { EventEmitter } from 'node:events';

/**
 * The connection errors an adapter reports while the store is first reached: @keyv/redis fails the call with a message
 * about its own options, and tells the socket's error (`connect ECONNREFUSED 127.0.0.1:6379`) only as an event.
 */
export class SocketErrors {
	public first: Error | undefined;

	public constructor(private readonly adapter: unknown) {
		(adapter as Partial<EventEmitter>).on?.('error', this.listener);
	}

	public stop(): void {
		(this.adapter as Partial<EventEmitter>).off?.('error', this.listener);
	}

	private readonly listener = (error: unknown) => {
		if (error instanceof Error && (error as NodeJS.ErrnoException).code) this.first ??= error;
	};
}
