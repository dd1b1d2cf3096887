const DAY = 86_400_000;

/**
 * How long the backend keeps a key past the moment the sweep would delete it. SQLite and PostgreSQL
 * only drop an expired key when it is read, and a read then loses what it named (an archive chunk
 * names its messages' markers, a directory its entries), so every such key must still be readable
 * when the next sweep comes: one interval later, plus a day for a late or failed sweep.
 */
export function keptPastExpiryMs(config: { sweepIntervalMinutes: number }): number {
	return config.sweepIntervalMinutes * 60_000 + DAY;
}
