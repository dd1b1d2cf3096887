import { LRUCache } from 'lru-cache';

/**
 * Characters of values kept (twice that in bytes at most). A turn of fifty 4,000-character messages rewrites its crude
 * windows, some 80,000 characters, which the next turn and the next context read back; a few such channels fit.
 */
const MAX_CHARS = 1 << 20;

/**
 * The values one SQLite connection last read (and its own writes to them), kept as long as no other connection commits to
 * the file. SQLite says when one did: `PRAGMA data_version` changes with every commit of another connection (another
 * process, another adapter on the same file), never with the connection's own. Reading a value back costs its decoding
 * from UTF-8: some 1 ms for the 80,000 characters of emoji of two crude windows, on every turn and every context of such a
 * channel (`npm run bench -- --only=hostile`, see docs/storage.md).
 */
/** What the cache keeps for a row it found absent: no row's value is empty (every value is JSON). */
export const ABSENT = '';

export class ConnectionCache {
	private readonly values = new LRUCache<string, string>({ maxSize: MAX_CHARS, sizeCalculation: (value, key) => value.length + key.length });
	private version: number | null = null;

	/** @param dataVersion reads the connection's `PRAGMA data_version` */
	public constructor(private readonly dataVersion: () => number) {}

	/**
	 * The values last read or written under `keys`, where no other connection has committed since (else undefined);
	 * {@link ABSENT} for a row found absent: a context reads a member's profile and topics, which most have none of.
	 */
	public getMany(keys: readonly string[]): (string | undefined)[] {
		this.forgetIfChanged();
		return keys.map((key) => this.values.get(key));
	}

	/** Keeps `value`, read from the row `key`, or that there is no such row. */
	public read(key: string, value: string | undefined): void {
		this.keep(key, value ?? ABSENT);
	}

	/**
	 * The row `key` now holds `value`, written and committed by this connection: a value kept is replaced. One not kept is
	 * not added: most rows written are read again only after a restart (an archive's older chunks), and every value kept
	 * is copied by each young-generation collection it survives.
	 */
	public written(key: string, value: string): void {
		if (this.values.has(key)) this.keep(key, value);
	}

	/** Forgets `key`: its row was deleted. */
	public delete(key: string): void {
		this.values.delete(key);
	}

	/** Forgets everything: a write cleared many rows, or raw SQL ran. */
	public clear(): void {
		this.values.clear();
	}

	/** `value` as the row `key` holds now, unless it alone would fill the cache (then what was kept of the row goes). */
	private keep(key: string, value: string): void {
		if (value.length + key.length <= MAX_CHARS) this.values.set(key, value);
		else this.values.delete(key);
	}

	private forgetIfChanged(): void {
		const version = this.dataVersion();
		if (version === this.version) return;
		this.values.clear();
		this.version = version;
	}
}
