import KeyvRedis from '@keyv/redis';
import type { CompareAndSet } from './compareAndSet';

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

/** @keyv/redis, with the {@link CompareAndSet} its read-modify-writes need to be atomic across shard processes. */
export class RedisAdapter extends KeyvRedis<string> {
	public readonly compareAndSet: CompareAndSet = async (key, expected, next, ttlMs) => {
		const client = await this.getClient();
		const written = await client.eval(COMPARE_AND_SET, {
			keys: [this.createKeyPrefix(key, this.namespace)],
			arguments: [
				expected ?? '',
				expected === undefined ? '0' : '1',
				next ?? '',
				next === undefined ? '0' : '1',
				String(Math.max(0, Math.ceil(ttlMs ?? 0)))
			]
		});
		return written === 1;
	};
}
