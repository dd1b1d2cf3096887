import type { NativeSets, RawWrite, SetChange } from './sets';

/** The commands of a node-redis transaction the sets queue. */
interface RedisMulti {
	zAdd(key: string, members: { score: number; value: string }[]): RedisMulti;
	zRem(key: string, members: string[]): RedisMulti;
	zRange(key: string, start: number, stop: number): RedisMulti;
	set(key: string, value: string, options?: { PX: number }): RedisMulti;
	exec(): Promise<unknown[]>;
}

/** The commands of a node-redis client the sets send. */
export interface RedisClient {
	multi(): RedisMulti;
	zRangeByLex(key: string, min: string, max: string, options: { LIMIT: { offset: number; count: number } }): Promise<string[]>;
	del(keys: string[]): Promise<number>;
	scan(cursor: string, options: { MATCH: string; TYPE: string; COUNT: number }): Promise<{ cursor: string | number; keys: string[] }>;
}

/** What the sets need of @keyv/redis: its connection, and its keys as it prefixes them. */
export interface RedisConnection {
	client(): Promise<RedisClient>;
	/** The key as the adapter stores it (keyv's namespace prefix added). */
	prefixed(key: string): string;
	/** The key as the adapter was given it, from the stored one. */
	unprefixed(key: string): string;
	/** The pattern of every stored key of `namespace`. */
	pattern(namespace: string): string;
}

/** How many keys one SCAN step asks for, walking a namespace's sets. */
const SCAN_COUNT = 1000;

/**
 * The sets of the Redis store, each a sorted set whose members all score 0, which Redis keeps in member order: a page is
 * `ZRANGEBYLEX key (<after> + LIMIT 0 <limit>`, found by the set's skip list in O(log n) and read in O(limit), so a walk of a
 * set in pages costs what it holds, once. A plain set has no order to resume from by member: SSCAN's cursor is no member,
 * and sorting SMEMBERS for each page would make the walk quadratic. Adding with score 0 again changes nothing, so adds
 * stay blind. Calls of many keys are one MULTI, which Redis runs whole.
 */
export class RedisSets implements NativeSets {
	public constructor(private readonly redis: RedisConnection) {}

	public async add(changes: readonly SetChange[]): Promise<void> {
		const multi = (await this.redis.client()).multi();
		for (const { key, members } of changes) multi.zAdd(this.redis.prefixed(key), scored(members));
		await multi.exec();
	}

	public async remove(changes: readonly SetChange[]): Promise<void> {
		const multi = (await this.redis.client()).multi();
		for (const { key, members } of changes) multi.zRem(this.redis.prefixed(key), [...members]);
		await multi.exec();
	}

	public async members(keys: readonly string[]): Promise<string[][]> {
		if (keys.length === 0) return [];
		const multi = (await this.redis.client()).multi();
		for (const key of keys) multi.zRange(this.redis.prefixed(key), 0, -1);
		return (await multi.exec()) as unknown as string[][];
	}

	public async page(key: string, after: string | null, limit: number): Promise<string[]> {
		const client = await this.redis.client();
		return client.zRangeByLex(this.redis.prefixed(key), after === null ? '-' : `(${after}`, '+', { LIMIT: { offset: 0, count: limit } });
	}

	public async delete(keys: readonly string[]): Promise<void> {
		if (keys.length === 0) return;
		await (await this.redis.client()).del(keys.map((key) => this.redis.prefixed(key)));
	}

	public async writeWith(rows: readonly RawWrite[], adds: readonly SetChange[]): Promise<void> {
		const multi = (await this.redis.client()).multi();
		for (const { key, value, ttlMs } of rows) {
			if (ttlMs) multi.set(this.redis.prefixed(key), value, { PX: Math.max(1, Math.ceil(ttlMs)) });
			else multi.set(this.redis.prefixed(key), value);
		}
		for (const { key, members } of adds) multi.zAdd(this.redis.prefixed(key), scored(members));
		await multi.exec();
	}

	public async *iterate(namespace: string): AsyncGenerator<[string, string[]]> {
		const client = await this.redis.client();
		for await (const keys of this.scan(client, namespace)) {
			const members = await this.members(keys.map((key) => this.redis.unprefixed(key)));
			for (const [index, key] of keys.entries()) yield [this.redis.unprefixed(key), members[index]!];
		}
	}

	public async clear(namespace: string): Promise<void> {
		const client = await this.redis.client();
		for await (const keys of this.scan(client, namespace)) await client.del(keys);
	}

	/** The stored keys of `namespace`'s sets, a SCAN step at a time. */
	private async *scan(client: RedisClient, namespace: string): AsyncGenerator<string[]> {
		let cursor = '0';
		do {
			const step = await client.scan(cursor, { MATCH: this.redis.pattern(namespace), TYPE: 'zset', COUNT: SCAN_COUNT });
			cursor = step.cursor.toString();
			if (step.keys.length > 0) yield step.keys.map(String);
		} while (cursor !== '0');
	}
}

function scored(members: readonly string[]): { score: number; value: string }[] {
	return members.map((value) => ({ score: 0, value }));
}
