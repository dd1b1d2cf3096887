import { performance } from 'node:perf_hooks';
import type { StoredMessage } from '../schemas';
import type { ScopeIndex, StepSize } from './ScopeIndex';

// How the archive's indexing is cut so that no call, and no slice of background work, holds the event loop long.

/**
 * A step reads 16 messages, or fewer holding 1,000 characters (a longer message is read over several steps). Words no
 * message held before take some 1.3 µs a character to index, so a step takes a millisecond or two at most.
 */
export const STEP: StepSize = { messages: 16, chars: 1_000 };
/**
 * Indexing yields to the event loop this often, so a reply waiting behind it waits no longer: a slice and a reply's own
 * work may share one turn of the event loop, and together stay well within 20 ms.
 */
export const SLICE_MS = 2;

/** Characters of text in `messages`. */
export function textChars(messages: readonly StoredMessage[]): number {
	return messages.reduce((chars, message) => chars + message.text.length, 0);
}

/** Work in slices that yield to the event loop every `sliceMs` (indexing: every {@link SLICE_MS}). */
export class Slices {
	private since = performance.now();

	/** `turn` waits for the next slice's turn: by default the next turn of the event loop. */
	public constructor(
		private readonly turn: () => Promise<unknown> = () => new Promise((resolve) => setImmediate(resolve)),
		private readonly sliceMs = SLICE_MS
	) {}

	/** Adds `messages` to `index` a step at a time, yielding between slices; stops early once `going` says so. */
	public async index(index: ScopeIndex, messages: readonly StoredMessage[], going: () => boolean = () => true): Promise<void> {
		for (let done = 0; done < messages.length; ) {
			done += index.add(messages.slice(done), STEP);
			await this.pause();
			if (!going()) return;
		}
	}

	/** Yields when the slice's time is up. */
	public async pause(): Promise<void> {
		if (performance.now() - this.since >= this.sliceMs) await this.yield();
	}

	public async yield(): Promise<void> {
		await this.turn();
		this.since = performance.now();
	}
}
