/** Ids the sweep reads or writes per round trip. */
export const SWEEP_BATCH = 100;

/** Runs `task` over `items` a batch at a time, one batch after another. */
export async function inBatches<T>(items: readonly T[], task: (batch: T[]) => Promise<void>, size = SWEEP_BATCH): Promise<void> {
	for (let at = 0; at < items.length; at += size) await task(items.slice(at, at + size));
}
