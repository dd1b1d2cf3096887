import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Ordinary chat text, generated reproducibly: words drawn from the word frequencies of the
 * long-conversation fixture (so stop words, pronouns and chat words come as often as they do in chat),
 * with one word in ten drawn from a Zipf tail of 20,000 rarer words (the o200k vocabulary's whole
 * lower-case words, by rank), as names, places and hobbies add to a real channel.
 */
export class ChatCorpus {
	private readonly common: string[];
	private readonly commonWeights: Float64Array;
	private readonly tail: string[];
	private readonly tailWeights: Float64Array;
	private seed: number;
	/** Words of a varied channel, drawn evenly (see {@link ChatCorpus.constructor}'s `varied`). */
	private readonly varied: string[] | null;

	/**
	 * `varied`: messages of 12 words drawn evenly from that many words (the tail's first), as busy servers with names,
	 * numbers and links write: an index's hardest case, as many distinct terms as messages allow.
	 */
	public constructor(seed = 1, varied?: number) {
		this.seed = seed;
		const fixture = JSON.parse(readFileSync(join(__dirname, '../test/fixtures/long-conversation.json'), 'utf8')) as {
			sessions: { turns: { text: string }[] }[];
		};
		const counts = new Map<string, number>();
		for (const session of fixture.sessions) {
			for (const turn of session.turns)
				for (const word of turn.text.toLowerCase().match(/[a-z][a-z']*/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
		}
		const ranked = [...counts].sort((a, b) => b[1] - a[1]);
		this.common = ranked.map(([word]) => word);
		this.commonWeights = cumulative(ranked.map(([, count]) => count));
		const known = new Set(this.common);
		const tail: string[] = [];
		for (let rank = 0; rank < 200_000 && tail.length < 20_000; rank++) {
			let text: string;
			try {
				text = decode([rank]);
			} catch {
				continue;
			}
			if (/^ [a-z]{4,11}$/.test(text) && !known.has(text.slice(1))) tail.push(text.slice(1));
		}
		this.tail = tail;
		this.tailWeights = cumulative(tail.map((_, rank) => 1 / (rank + 1)));
		this.varied = varied === undefined ? null : tail.slice(0, varied);
	}

	/** How many words a varied corpus draws from; null for ordinary chat. */
	public get vocabulary(): number | null {
		return this.varied?.length ?? null;
	}

	/** A chat message of 4 to 24 words. */
	public message(): string {
		if (this.varied) return this.variedWords(12);
		const length = 4 + Math.floor(this.random() * 21);
		const words: string[] = [];
		for (let at = 0; at < length; at++)
			words.push(this.random() < 0.1 ? pick(this.tail, this.tailWeights, this.random()) : pick(this.common, this.commonWeights, this.random()));
		const text = words.join(' ');
		return `${text[0]!.toUpperCase()}${text.slice(1)}${this.random() < 0.3 ? '?' : '.'}`;
	}

	/** A question a member might ask the persona: 5 to 14 words, ending in "?". */
	public question(): string {
		if (this.varied) return `${this.variedWords(8)}?`;
		const length = 5 + Math.floor(this.random() * 10);
		const words: string[] = [];
		for (let at = 0; at < length; at++)
			words.push(
				this.random() < 0.15 ? pick(this.tail, this.tailWeights, this.random()) : pick(this.common, this.commonWeights, this.random())
			);
		return `${words.join(' ')}?`;
	}

	/** Mulberry32: the same seed gives the same text on every machine. */
	public random(): number {
		this.seed = (this.seed + 0x6d2b79f5) | 0;
		let t = this.seed;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	private variedWords(length: number): string {
		const words = this.varied!;
		return Array.from({ length }, () => words[Math.floor(this.random() * words.length)]!).join(' ');
	}
}

function cumulative(weights: number[]): Float64Array {
	const sums = new Float64Array(weights.length);
	let total = 0;
	weights.forEach((weight, index) => {
		total += weight;
		sums[index] = total;
	});
	return sums.map((sum) => sum / total);
}

function pick(words: string[], weights: Float64Array, random: number): string {
	let low = 0;
	let high = weights.length - 1;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (weights[middle]! < random) low = middle + 1;
		else high = middle;
	}
	return words[low]!;
}
