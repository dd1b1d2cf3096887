import { readings } from './scratch';

/** `array`, or a copy half again as large once `needed` exceeds it. */
export function grown(array: Int32Array<ArrayBuffer>, needed: number): Int32Array<ArrayBuffer> {
	if (needed <= array.length) return array;
	const next = new Int32Array(Math.max(needed, Math.ceil(array.length * 1.5)));
	next.set(array);
	return next;
}

/**
 * Postings by term, in one integer array: each term owns a chain of blocks, newest last, so appending
 * never moves a term's older postings and a query walks back from the newest. A block is
 * `[previous block, capacity, used, postings of the term so far]` then `capacity` pairs `(place, count)`.
 * The garbage collector sees one array, whatever the archive's size.
 */
export class PostingBlocks {
	private data: Int32Array<ArrayBuffer> = new Int32Array(4096);
	private used = 0;
	private readonly newest = new Map<number, number>();

	public get bytes(): number {
		return this.data.byteLength + this.newest.size * 40;
	}

	public add(key: number, at: number, count: number): void {
		let block = this.newest.get(key);
		if (block === undefined || this.data[block + 2] === this.data[block + 1]) {
			const capacity = block === undefined ? 1 : Math.min(2 * this.data[block + 1]!, 256);
			const held = block === undefined ? 0 : this.data[block + 3]!;
			const start = this.used;
			this.used += 4 + 2 * capacity;
			this.data = grown(this.data, this.used);
			this.data[start] = block ?? -1;
			this.data[start + 1] = capacity;
			this.data[start + 2] = 0;
			this.data[start + 3] = held;
			this.newest.set(key, start);
			block = start;
		}
		const { data } = this;
		const filled = data[block + 2]!;
		data[block + 4 + 2 * filled] = at;
		data[block + 5 + 2 * filled] = count;
		data[block + 2] = filled + 1;
		data[block + 3] = data[block + 3]! + 1;
	}

	/** How many messages hold the term. */
	public held(key: number): number {
		const block = this.newest.get(key);
		return block === undefined ? 0 : this.data[block + 3]!;
	}

	/**
	 * Copies the term's newest `limit` postings, as `[place, count, …]` newest first, into the query's scratch from `start`; returns
	 * where they end.
	 */
	public read(key: number, limit: number, start: number): number {
		const { data } = this;
		const end = start + 2 * Math.min(limit, this.held(key));
		const out = readings(end);
		let at = start;
		let block = this.newest.get(key) ?? -1;
		while (block >= 0 && at < end) {
			for (let pair = data[block + 2]! - 1; pair >= 0 && at < end; pair--) {
				out[at++] = data[block + 4 + 2 * pair]!;
				out[at++] = data[block + 5 + 2 * pair]!;
			}
			block = data[block]!;
		}
		return at;
	}
}
