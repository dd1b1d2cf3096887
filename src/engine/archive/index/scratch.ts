/**
 * Scratch space of a query, one slot per message, shared by every index of the process (a search runs
 * to its end without yielding): the slots are left at zero after each query.
 */
const shared = {
	scores: new Float64Array(0),
	matched: new Uint8Array(0),
	lastTerm: new Int32Array(0),
	around: new Float64Array(0),
	/** The messages a query touched, the neighbours of one term's messages, their final scores and a copy to select from. */
	touched: new Int32Array(0),
	near: new Int32Array(0),
	finals: new Float64Array(0),
	picked: new Float64Array(0)
};

export function scratch(size: number): typeof shared {
	if (shared.scores.length < size) {
		const capacity = Math.max(size, shared.scores.length * 2, 1024);
		shared.scores = new Float64Array(capacity);
		shared.matched = new Uint8Array(capacity);
		shared.lastTerm = new Int32Array(capacity);
		shared.around = new Float64Array(capacity);
		shared.touched = new Int32Array(capacity);
		shared.near = new Int32Array(capacity);
		shared.finals = new Float64Array(capacity);
		shared.picked = new Float64Array(capacity);
	}
	return shared;
}

/** The postings a query reads, copied from the index: at least `size` long (a query fills it before it scores). */
let postingsRead = new Int32Array(4096);

export function readings(size: number): Int32Array {
	if (postingsRead.length < size) {
		const grownTo = new Int32Array(Math.max(size, postingsRead.length * 2));
		grownTo.set(postingsRead);
		postingsRead = grownTo;
	}
	return postingsRead;
}

/** The `k`-th largest of `values` (which it reorders), by quickselect. */
export function kthLargest(values: Float64Array, k: number): number {
	let low = 0;
	let high = values.length - 1;
	const target = k - 1;
	while (low < high) {
		const pivot = values[(low + high) >> 1]!;
		let left = low;
		let right = high;
		while (left <= right) {
			while (values[left]! > pivot) left++;
			while (values[right]! < pivot) right--;
			if (left <= right) {
				const swap = values[left]!;
				values[left++] = values[right]!;
				values[right--] = swap;
			}
		}
		if (target <= right) high = right;
		else if (target >= left) low = left;
		else return values[target]!;
	}
	return values[target]!;
}
