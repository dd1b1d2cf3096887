import type { MemoryLogger } from '../MemoryLogger';
import type { MemoryStore } from '../store/MemoryStore';

/** The first wait before the store is asked again, doubled each time up to {@link LONGEST_WAIT_MS}. */
const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 15_000;

/**
 * For a store that did not answer at start-up (`MEMORY_START_WITHOUT_STORE`): asks it again, less and less often, until it
 * answers; then runs the start-up checks (`checks`, the key against the store before anything is read or written) and
 * turns memory on. A check that fails (a key that does not open the store) is logged, and memory stays off. Returns the
 * function that stops asking.
 */
export function checkWhenReached(store: MemoryStore, checks: () => Promise<void>, logger: MemoryLogger): () => void {
	let timer: NodeJS.Timeout | undefined;
	let stopped = false;
	const attempt = async (wait: number) => {
		try {
			await store.health.gate.checks(() => store.envelope('__ping__'));
		} catch {
			if (!stopped) timer = setTimeout(() => void attempt(Math.min(wait * 2, LONGEST_WAIT_MS)), wait).unref();
			return;
		}
		try {
			await store.health.gate.checks(checks);
		} catch (error) {
			logger.error('[memory] the store answers, but memory stays off: its start-up check failed:', error);
			return;
		}
		if (!stopped) store.health.gate.open();
	};
	timer = setTimeout(() => void attempt(FIRST_WAIT_MS * 2), FIRST_WAIT_MS).unref();
	return () => {
		stopped = true;
		clearTimeout(timer);
	};
}
