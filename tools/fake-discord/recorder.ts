import { EventEmitter } from 'node:events';
import type { RecordedRequest } from './types';

/** Tells whether a recorded request is the one a test waits for. */
export type RequestPredicate = (request: RecordedRequest) => boolean;

/** Every REST request the fake received, in arrival order, with a way to wait for one. */
export class RequestRecorder {
	readonly #requests: RecordedRequest[] = [];
	readonly #events = new EventEmitter();

	public get all(): readonly RecordedRequest[] {
		return this.#requests;
	}

	public add(request: RecordedRequest): void {
		this.#requests.push(request);
		this.#events.emit('request', request);
	}

	/**
	 * Resolves with the first request, already recorded or still to come, that matches;
	 * rejects after `timeoutMs` with the list of what did arrive, to make a failure readable.
	 */
	public async waitFor(predicate: RequestPredicate, timeoutMs = 5000): Promise<RecordedRequest> {
		const found = this.#requests.find(predicate);
		if (found) return found;
		return new Promise((resolve, reject) => {
			const onRequest = (request: RecordedRequest) => {
				if (!predicate(request)) return;
				clearTimeout(timer);
				this.#events.off('request', onRequest);
				resolve(request);
			};
			const timer = setTimeout(() => {
				this.#events.off('request', onRequest);
				const seen = this.#requests.map((request) => `${request.method} ${request.path} → ${request.status}`).join('\n  ');
				reject(new Error(`fake Discord: no matching request within ${timeoutMs} ms; received:\n  ${seen || '(nothing)'}`));
			}, timeoutMs);
			this.#events.on('request', onRequest);
		});
	}
}
