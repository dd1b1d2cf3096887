import { performance } from 'node:perf_hooks';
import type { StoredMessage } from '../schemas';
import type { ScopeIndex } from './ScopeIndex';

// How the archive's indexing is cut so that no call, and no slice of background work, holds the event loop long.

/**
 * Messages indexed between two looks at the clock: 16, or fewer that hold 4,000 characters (a single long message is a
 * step alone). Indexing costs some 10 µs a word, so a step of 4,000 characters takes a few milliseconds at most.
 */
export const STEP_MESSAGES = 16;
export const STEP_CHARS = 4_000;
/**
 * Indexing yields to the event loop this often, so a reply waiting behind it waits no longer: a slice and a reply's own
 * work may share one turn of the event loop, and together stay well within 20 ms.
 */
export const SLICE_MS = 4;

/** Characters of text in `messages`. */
export function textChars(messages: readonly StoredMessage[]): number {
	return messages.reduce((chars, message) => chars + message.text.length, 0);
}

/**
 * `messages` in steps of {@link STEP_MESSAGES}, or fewer that hold `maxChars` characters; a message longer than that is a
 * step alone, or, when `longAlone` is false, ends the steps.
 */
export function* steps(messages: readonly StoredMessage[], maxChars = STEP_CHARS, longAlone = true): Generator<StoredMessage[]> {
	let step: StoredMessage[] = [];
	let chars = 0;
	for (const message of messages) {
		if (step.length === STEP_MESSAGES || chars + message.text.length > maxChars) {
			if (step.length === 0 && longAlone) {
				yield [message];
				continue;
			}
			if (step.length > 0) yield step;
			if (message.text.length > maxChars && !longAlone) return;
			step = [];
			chars = 0;
		}
		step.push(message);
		chars += message.text.length;
	}
	if (step.length > 0) yield step;
}

/** Indexing in steps that yield to the event loop every {@link SLICE_MS}. */
export class Slices {
	private since = performance.now();

	/** `turn` waits for the next slice's turn: by default the next turn of the event loop. */
	public constructor(private readonly turn: () => Promise<unknown> = () => new Promise((resolve) => setImmediate(resolve))) {}

	/** Adds `messages` to `index` a step at a time, yielding between slices; stops early once `going` says so. */
	public async index(index: ScopeIndex, messages: readonly StoredMessage[], going: () => boolean = () => true): Promise<void> {
		for (const step of steps(messages)) {
			index.add(step);
			await this.pause();
			if (!going()) return;
		}
	}

	/** Yields when the slice's time is up. */
	public async pause(): Promise<void> {
		if (performance.now() - this.since >= SLICE_MS) await this.yield();
	}

	public async yield(): Promise<void> {
		await this.turn();
		this.since = performance.now();
	}
}
