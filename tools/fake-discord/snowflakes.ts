import { DiscordSnowflake } from '@sapphire/snowflake';

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
		const generated = DiscordSnowflake.generate();
		// More than 4096 ids in one millisecond would wrap the increment; never go backwards.
		this.#last = generated > this.#last ? generated : this.#last + 1n;
		return this.#last.toString();
	}

	/** When a snowflake was made, in milliseconds since the Unix epoch. */
	public static timestampOf(id: string): number {
		return Number(DiscordSnowflake.timestampFrom(id));
	}
}
