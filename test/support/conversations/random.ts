/** A seeded pseudo-random source (mulberry32): the same seed gives the same conversations on every machine. */
export class Random {
	private state: number;

	public constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** A number in [0, 1). */
	public next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let value = this.state;
		value = Math.imul(value ^ (value >>> 15), value | 1);
		value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
		return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
	}

	/** An integer in [min, max]. */
	public int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	public chance(probability: number): boolean {
		return this.next() < probability;
	}

	public pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)]!;
	}

	/** `count` different items, in random order. */
	public sample<T>(items: readonly T[], count: number): T[] {
		return this.shuffle(items).slice(0, count);
	}

	public shuffle<T>(items: readonly T[]): T[] {
		const copy = [...items];
		for (let index = copy.length - 1; index > 0; index--) {
			const other = Math.floor(this.next() * (index + 1));
			[copy[index], copy[other]] = [copy[other]!, copy[index]!];
		}
		return copy;
	}
}
