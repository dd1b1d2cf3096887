import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryEngine, type MemoryTurn, type StoreHealthChange } from '../../src/engine';
import { privateRedis, type PrivateServer } from '../support/private-servers';

const TURN: MemoryTurn = {
	userId: '200000000000000001',
	userName: 'alice',
	serverId: '300000000000000001',
	channelId: '300000000000000002',
	history: [
		{
			role: 'user',
			authorId: '200000000000000001',
			authorName: 'alice',
			text: 'my cat is called Miso',
			messageId: '500000000000000001',
			timestamp: 1
		}
	],
	responses: [{ text: 'Miso is a fine name.', personaId: 'sol', personaName: 'Sol', messageId: '500000000000000002' }]
};
const KEY_A = 'aa'.repeat(32);
const KEY_B = 'bb'.repeat(32);
const REQUEST = { userId: TURN.userId, serverId: TURN.serverId, channelId: TURN.channelId, personaId: 'sol', query: 'what is my cat called?' };

describe('GIVEN MEMORY_START_WITHOUT_STORE and a store that does not answer at start-up', () => {
	let server: PrivateServer;
	let memory: MemoryEngine | undefined;
	const changes: StoreHealthChange[] = [];

	beforeAll(async () => {
		server = await privateRedis();
	});

	afterAll(async () => {
		await memory?.close();
		await server?.dispose();
	});

	it('WITHOUT the setting THEN open rejects with STORE_UNAVAILABLE, as before', async ({ skip }) => {
		if (server.skipReason) return skip(server.skipReason);
		await expect(MemoryEngine.open({ env: {}, storeUrl: server.url })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
	});

	it('THEN the engine opens with memory off: contexts are empty failures, turns are not kept, the outage is told once', async ({ skip }) => {
		if (server.skipReason) return skip(server.skipReason);
		memory = await MemoryEngine.open({
			env: { MEMORY_START_WITHOUT_STORE: 'true' },
			storeUrl: server.url,
			config: { sweepIntervalMinutes: 0, storeTimeoutMs: 500 },
			onStoreHealth: (change) => changes.push(change)
		});
		expect(changes).toEqual([{ available: false, at: expect.any(Number), error: expect.objectContaining({ code: 'STORE_UNAVAILABLE' }) }]);
		expect(memory.stats().store).toMatchObject({ available: false, outages: 1 });
		await expect(memory.recordTurn(TURN)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
		await expect(memory.buildContext(REQUEST)).rejects.toThrow(/^Memory is off until the store answers/);
	});

	it('WHEN the store starts THEN memory comes on by itself, the recovery is told, and turns are kept again', async ({ skip }) => {
		if (server.skipReason) return skip(server.skipReason);
		await server.start();
		await vi.waitFor(() => expect(changes.at(-1)).toMatchObject({ available: true }), { timeout: 20_000, interval: 100 });
		await vi.waitFor(() => memory!.recordTurn(TURN), { timeout: 5000, interval: 100 });
		expect((await memory!.buildContext(REQUEST)).text).toContain('Miso');
		expect(changes.map((change) => change.available)).toEqual([false, true]);
	}, 30_000);

	it('WHEN the store answers but the encryption key does not open it THEN memory stays off and nothing in it is touched', async ({ skip }) => {
		if (server.skipReason) return skip(server.skipReason);
		await memory!.close();
		memory = undefined;
		const config = { storeUrl: server.url, sweepIntervalMinutes: 0, storeTimeoutMs: 500 };
		const sealed = await MemoryEngine.open({ env: {}, config: { ...config, encryptionKey: KEY_A } });
		await sealed.recordTurn(TURN);
		await sealed.close();
		await server.kill();

		const errors: unknown[][] = [];
		const logger = { ...console, error: (...args: unknown[]) => void errors.push(args) };
		const wrongKey = await MemoryEngine.open({
			env: { MEMORY_START_WITHOUT_STORE: 'yes' },
			config: { ...config, encryptionKey: KEY_B },
			logger,
			onStoreHealth: () => undefined
		});
		await server.start();
		await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 20_000, interval: 100 });
		expect(String(errors[0]![0])).toContain('the store answers, but memory stays off');
		expect(errors[0]![1]).toMatchObject({ code: 'INVALID_CONFIG', message: expect.stringContaining('MEMORY_ENCRYPTION_KEY does not open') });
		await expect(
			wrongKey.recordTurn({ ...TURN, history: [{ ...TURN.history[0]!, text: 'overwrite?', messageId: '500000000000000003' }] })
		).rejects.toMatchObject({
			code: 'STORE_UNAVAILABLE'
		});
		await wrongKey.close();

		const rightKey = await MemoryEngine.open({ env: {}, config: { ...config, encryptionKey: KEY_A } });
		const context = await rightKey.buildContext(REQUEST);
		await rightKey.close();
		expect(context.text).toContain('Miso');
		expect(context.text).not.toContain('overwrite?');
	}, 40_000);
});
