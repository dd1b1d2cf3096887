/**
 * Bytes of values written between two vacuums. Every write of a key replaces its row, and the row it replaced stays
 * in the table (and its TOAST table, for values over 2 kB) as a dead tuple until a vacuum marks the room free for
 * new rows. Autovacuum looks at a database once a minute and only once a fifth of a table is dead, so a busy
 * channel's rewritten archive chunks and short-term entries grew the table to five to seven times its live data
 * (`npm run bench`, section 4). A vacuum every few MiB written keeps it near its live size.
 */
export const VACUUM_AFTER_BYTES = 4 * 1024 * 1024;

/**
 * Runs a plain `VACUUM` of the store's table (with its TOAST table) in the background once enough has been written:
 * never on the reply path (nothing awaits it), one at a time, and skipped by PostgreSQL while another process
 * vacuums the table (`SKIP_LOCKED`). A plain vacuum takes no lock that reads or writes wait for.
 */
export class PostgresVacuum {
	private written = 0;
	private running: Promise<void> | null = null;

	public constructor(
		private readonly vacuum: () => Promise<unknown>,
		private readonly afterBytes = VACUUM_AFTER_BYTES
	) {}

	/** Notes values written; starts a vacuum once {@link VACUUM_AFTER_BYTES} were written since the last. */
	public wrote(values: readonly (string | undefined)[]): void {
		for (const value of values) this.written += value?.length ?? 0;
		if (this.written < this.afterBytes || this.running) return;
		this.written = 0;
		// Housekeeping only: autovacuum does the same later, and an outage shows in the next real call.
		this.running = this.vacuum().then(
			() => undefined,
			() => undefined
		);
		void this.running.finally(() => {
			this.running = null;
		});
	}

	/** Resolves once no vacuum runs (before the pool ends). */
	public async settled(): Promise<void> {
		await this.running;
	}
}
