/** Discord's epoch: the first second of 2015, in milliseconds since the Unix epoch. */
const DISCORD_EPOCH = 1_420_070_400_000n;

/**
 * Hands out Discord snowflakes that are valid (Discord epoch, current time) and strictly increasing,
 * so that ordering by id matches ordering by creation, as `before`/`after` history queries expect.
 *
 * @example
 * const ids = new SnowflakeGenerator();
 * const first = ids.next();
 * BigInt(ids.next()) > BigInt(first); // true
 */
export class SnowflakeGenerator {
	#last = 0n;

	/** The next id, as the decimal string Discord sends. */
	public next(): string {
		// The time in the top bits; worker, process and increment (the low 22 bits) come from the last id.
		const now = (BigInt(Date.now()) - DISCORD_EPOCH) << 22n;
		this.#last = now > this.#last ? now : this.#last + 1n;
		return this.#last.toString();
	}

	/** When a snowflake was made, in milliseconds since the Unix epoch. */
	public static timestampOf(id: string): number {
		return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
	}
}
