import Keyv from 'keyv';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryEngine, MemoryError } from '../../src';
import { storeError } from '../../src/engine/errors';
import { StoreHealth } from '../../src/engine/store/StoreHealth';
import { ask, turn } from '../support/turns';

/**
 * The engine over a store that can go away. The real servers are stopped and started in
 * test/e2e/outage-*.test.ts; this is the same path with a store whose failures the test chooses.
 */
class FlakyMap extends Map<string, unknown> {
	/** Every call fails as a refused connection would. */
	public down = false;
	/** Every call waits forever, as on a server that stopped answering. */
	public frozen = false;
	/** Reads fail, writes go through. */
	public readsFail = false;

	public override get(key: string) {
		if (this.readsFail) throw new Error('read failed');
		return this.gate(() => super.get(key)) as never;
	}

	public override set(key: string, value: unknown) {
		return this.gate(() => super.set(key, value)) as never;
	}

	public override delete(key: string) {
		return this.gate(() => super.delete(key)) as never;
	}

	private gate<T>(run: () => T): T | Promise<T> {
		if (this.frozen) return new Promise(() => undefined);
		if (this.down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
		return run();
	}
}

describe('GIVEN an engine whose store goes away', () => {
	const opened: MemoryEngine[] = [];
	afterEach(async () => {
		await Promise.all(opened.splice(0).map((engine) => engine.close()));
	});

	async function open(timeoutMs = 2000) {
		const map = new FlakyMap();
		const logger = { warn: vi.fn(), error: vi.fn() };
		const engine = await MemoryEngine.open({
			keyv: new Keyv({ store: map }),
			env: {},
			logger,
			config: { storeTimeoutMs: timeoutMs, sweepIntervalMinutes: 0 }
		});
		opened.push(engine);
		return { map, logger, engine };
	}

	it(
		'WHEN turns and contexts fail while it is down ' +
			'THEN each rejects as STORE_UNAVAILABLE, the outage is logged once and counted, and its end is logged once',
		async () => {
			const { map, logger, engine } = await open();
			await engine.recordTurn(turn({ text: 'before the outage' }));
			map.down = true;
			for (let index = 0; index < 5; index++) {
				await expect(engine.recordTurn(turn({ text: `during ${index}` }))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
				await expect(engine.buildContext(ask({ query: 'anything' }))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
			}
			expect(logger.error).toHaveBeenCalledTimes(1);
			expect(logger.error.mock.calls[0]![0]).toContain('[memory] the store is unreachable');
			expect(engine.stats()).toMatchObject({
				turnsRecorded: 1,
				turnsFailed: 5,
				contextsFailed: 5,
				store: { available: false, outages: 1, lastOutage: { endedAt: null } }
			});

			map.down = false;
			expect((await engine.buildContext(ask({ query: 'outage' }))).text).toContain('before the outage');
			expect(logger.warn).toHaveBeenCalledTimes(1);
			expect(logger.warn.mock.calls[0]![0]).toMatch(/^\[memory\] the store is back after [\d.]+ s; \d+ calls failed meanwhile\.$/);
			expect(engine.stats().store).toMatchObject({ available: true, outages: 1, lastOutage: { endedAt: expect.any(Number) } });
			expect(logger.error).toHaveBeenCalledTimes(1);
		}
	);

	it('WHEN reads fail but writes would go through THEN capture rejects and writes nothing over what it could not read', async () => {
		const { map, engine } = await open();
		await engine.recordTurn(turn({ text: 'the first thing said' }));
		map.readsFail = true;
		await expect(engine.recordTurn(turn({ text: 'the second thing said' }))).rejects.toMatchObject({ code: 'STORE_FAILURE' });
		map.readsFail = false;
		const { text } = await engine.buildContext(ask());
		expect(text).toContain('the first thing said');
		expect(text).not.toContain('the second thing said');
	});

	it('WHEN it stops answering THEN each call fails as STORE_UNAVAILABLE after MEMORY_STORE_TIMEOUT_MS instead of hanging', async () => {
		const { map, engine } = await open(200);
		map.frozen = true;
		const started = performance.now();
		await expect(engine.buildContext(ask({ query: 'anyone?' }))).rejects.toMatchObject({
			code: 'STORE_UNAVAILABLE',
			message: expect.stringContaining('within 200 ms')
		});
		await expect(engine.recordTurn(turn())).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
		expect(performance.now() - started).toBeLessThan(1000);
		map.frozen = false;
	});
});

describe('GIVEN the store health', () => {
	const unavailable = () => new MemoryError('STORE_UNAVAILABLE', 'down');

	it('WHEN an answer to a call made before the outage arrives during it THEN the outage goes on, and only a call made after ends it', () => {
		const health = new StoreHealth();
		const changes: boolean[] = [];
		health.onChange((change) => changes.push(change.available));
		const early = health.begin();
		health.failed(health.begin(), unavailable());
		health.succeeded(early);
		expect(health.counters.available).toBe(false);
		health.succeeded(health.begin());
		expect(changes).toEqual([false, true]);
	});

	it('WHEN a failure of a call made before the recovery arrives after it THEN no new outage starts', () => {
		const health = new StoreHealth();
		health.failed(health.begin(), unavailable());
		const during = health.begin();
		health.succeeded(health.begin());
		health.failed(during, unavailable());
		expect(health.counters).toMatchObject({ available: true, outages: 1, unavailableCalls: 2 });
	});

	it('WHEN a call fails for another reason than reachability THEN the store stays available', () => {
		const health = new StoreHealth();
		health.failed(health.begin(), new MemoryError('STORE_FAILURE', 'value too large'));
		expect(health.counters).toMatchObject({ available: true, outages: 0 });
	});
});

describe('GIVEN what the adapters throw', () => {
	it.each([
		['node-redis, server gone', new Error('The client is offline')],
		['node-redis, connection dropped', new Error('Socket closed unexpectedly')],
		[
			'@keyv/redis, never connected',
			new Error('Redis client is not connected or has failed to connect. This is thrown because throwOnConnectError is set to true.')
		],
		['pg, server killed', new Error('Connection terminated unexpectedly')],
		['pg, shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
		['a refused socket', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
		['a wrapped reset', new Error('query failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })]
	])('WHEN %s THEN the failure is STORE_UNAVAILABLE', (_, cause) => {
		expect(storeError('get key', cause).code).toBe('STORE_UNAVAILABLE');
	});

	it.each([
		['a SQL error', Object.assign(new Error('value too long for type character varying(1024)'), { code: '22001' })],
		['a Redis command error', new Error('WRONGTYPE Operation against a key holding the wrong kind of value')],
		['anything else', new Error('unexpected')]
	])('WHEN %s THEN the failure is STORE_FAILURE', (_, cause) => {
		expect(storeError('get key', cause).code).toBe('STORE_FAILURE');
	});
});
