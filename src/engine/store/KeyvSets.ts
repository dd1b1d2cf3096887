import type { ReadBack } from './ReadBack';
import type { SetChange } from './sets';

/** A set as a value: member → 1. */
type Members = Record<string, 1>;

/** What the sets of a host's Keyv are made of: the store's own values, their updates, and its read-backs. */
export interface SetValues {
	update<T>(key: string, change: (current: T | undefined) => { value: T } | null | 'delete'): Promise<T | undefined>;
	getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]>;
	delete(keys: readonly string[]): Promise<void>;
	readonly readBack: ReadBack;
}

/**
 * Sets on a Keyv the host passed, which has none of its own: each set is one value (member → 1) under its key, changed by
 * the store's read-modify-write, its additions read back until they stay (another process may write the value over).
 * Correct, not fast: every change rewrites the whole value, and every page reads and sorts it whole.
 */
export class KeyvSets {
	public constructor(private readonly values: SetValues) {}

	public async add(changes: readonly SetChange[]): Promise<void> {
		await Promise.all(changes.map(({ key, members }) => this.addTo(key, members)));
	}

	public async remove(changes: readonly SetChange[]): Promise<void> {
		await Promise.all(
			changes.map(async ({ key, members }) => {
				// No read-back of an earlier addition may put back what this removes.
				await this.values.readBack.settled(key);
				await this.values.update<Members>(key, (current) => {
					if (!current || !members.some((member) => member in current)) return null;
					const next = { ...current };
					for (const member of members) delete next[member];
					return Object.keys(next).length === 0 ? 'delete' : { value: next };
				});
			})
		);
	}

	public async members(keys: readonly string[]): Promise<string[][]> {
		const values = await this.values.getMany<Members>(keys);
		return values.map((value) => Object.keys(value ?? {}).sort());
	}

	public async page(key: string, after: string | null, limit: number): Promise<string[]> {
		const [members] = await this.members([key]);
		return members!.filter((member) => after === null || member > after).slice(0, limit);
	}

	public async delete(keys: readonly string[]): Promise<void> {
		for (const key of keys) await this.values.readBack.settled(key);
		await this.values.delete(keys);
	}

	private async addTo(key: string, members: readonly string[]): Promise<void> {
		const add = () =>
			this.values.update<Members>(key, (current) =>
				members.every((member) => current?.[member] === 1)
					? null
					: { value: { ...current, ...Object.fromEntries(members.map((member) => [member, 1])) } }
			);
		await add();
		void this.values.readBack.confirm<Members>(key, (stored) => members.every((member) => stored?.[member] === 1), add);
	}
}
