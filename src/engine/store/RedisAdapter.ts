import KeyvRedis from '@keyv/redis';
import type { CompareAndSet, CompareAndSetMany, ConditionalWrite } from './compareAndSet';
import { type RedisClient, RedisSets } from './RedisSets';

/**
 * Compare-and-set in one server-side step: Redis runs a script whole, with no other command in between.
 * ARGV: expected, whether a row is expected, next, whether one is written, its time to live in ms (0: none).
 */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[2] == '1' then
	if current ~= ARGV[1] then return 0 end
elseif current then
	return 0
end
if ARGV[4] == '0' then
	redis.call('DEL', KEYS[1])
elseif tonumber(ARGV[5]) > 0 then
	redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[5])
else
	redis.call('SET', KEYS[1], ARGV[3])
end
return 1
`;

/** {@link COMPARE_AND_SET} for each key in turn, in one script: ARGV holds five values per key, in the keys' order. */
const COMPARE_AND_SET_MANY = `
local results = {}
for index, key in ipairs(KEYS) do
	local base = (index - 1) * 5
	local current = redis.call('GET', key)
	local holds
	if ARGV[base + 2] == '1' then holds = current == ARGV[base + 1] else holds = not current end
	if holds then
		if ARGV[base + 4] == '0' then
			redis.call('DEL', key)
		elseif tonumber(ARGV[base + 5]) > 0 then
			redis.call('SET', key, ARGV[base + 3], 'PX', ARGV[base + 5])
		else
			redis.call('SET', key, ARGV[base + 3])
		end
		results[index] = 1
	else
		results[index] = 0
	end
end
return results
`;

/**
 * @keyv/redis, with the {@link CompareAndSet} its read-modify-writes need to be atomic across shard processes, and sets
 * (RedisSets) under the keys it prefixes as its own.
 */
export class RedisAdapter extends KeyvRedis<string> {
	public readonly sets = new RedisSets({
		client: async () => (await this.getClient()) as unknown as RedisClient,
		prefixed: (key) => this.createKeyPrefix(key, this.namespace),
		unprefixed: (key) => this.getKeyWithoutPrefix(key, this.namespace),
		pattern: (namespace) => `${namespace}${this.keyPrefixSeparator}*`
	});

	/** Deletes the namespace's keys, its sets too (keyv's clear leaves every key that is not a string). */
	public override async clear(): Promise<void> {
		await super.clear();
		if (this.namespace) await this.sets.clear(this.namespace);
	}

	public readonly compareAndSet: CompareAndSet = async (key, expected, next, ttlMs) => {
		const client = await this.getClient();
		const written = await client.eval(COMPARE_AND_SET, {
			keys: [this.createKeyPrefix(key, this.namespace)],
			arguments: scriptArguments({ key, expected, next, ttlMs })
		});
		return written === 1;
	};

	/** See {@link CompareAndSetMany}: one script, which Redis runs whole. */
	public readonly compareAndSetMany: CompareAndSetMany = async (writes) => {
		if (writes.length === 0) return [];
		const client = await this.getClient();
		const written = (await client.eval(COMPARE_AND_SET_MANY, {
			keys: writes.map(({ key }) => this.createKeyPrefix(key, this.namespace)),
			arguments: writes.flatMap(scriptArguments)
		})) as number[];
		return written.map((landed) => landed === 1);
	};
}

/** A change as the scripts read it: expected, whether a row is expected, next, whether one is written, its time to live in ms (0: none). */
function scriptArguments({ expected, next, ttlMs }: ConditionalWrite): string[] {
	return [
		expected ?? '',
		expected === undefined ? '0' : '1',
		next ?? '',
		next === undefined ? '0' : '1',
		String(Math.max(0, Math.ceil(ttlMs ?? 0)))
	];
}
