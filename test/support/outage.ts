import { container } from '@sapphire/framework';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { MemoryError, type MemoryErrorContext, MemoryEvents, type MemoryStoreRecovery } from '../../src';
import { ALICE, BOB, converse, exchanges, GENERAL, GUILD_ID, type MemoryBot, RANDOM, SOL, startMemoryBot } from './memory-bot';
import type { PrivateServer } from './private-servers';

/** How long a store call may take in these suites before it fails as unavailable. */
const STORE_TIMEOUT_MS = 1000;

/** One member message and the persona's reply to it, timed from the message to the reply reaching Discord. */
async function replyTo(bot: MemoryBot, author: string, channelId: string, content: string) {
	const sentAt = Date.now();
	const sent = bot.fake.sendMessage({ channelId, author, content });
	const reply = await bot.fake.waitFor(
		(request) =>
			request.method === 'POST' &&
			request.path === `/channels/${channelId}/messages` &&
			(request.body as { content?: string })?.content === `noted "${content}"`,
		10_000
	);
	const exchange = await vi.waitFor(() => exchanges.get(String(sent.id)) ?? Promise.reject(new Error('no exchange yet')), {
		timeout: 2000,
		interval: 5
	});
	return { exchange, latencyMs: reply.at - sentAt };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * The store-outage suite over a server the test owns: a real SapphireClient with the plugin and a
 * persona listener, logged in to the fake Discord, stores its memory on `makeServer()`'s server; the
 * test kills it in the middle of a conversation (and, where it can, freezes it), keeps the members
 * talking, then starts it again.
 */
export function storeOutageSuite(makeServer: () => Promise<PrivateServer>): void {
	describe('store outage: the server behind the plugin stops in the middle of a conversation', () => {
		let server: PrivateServer;
		let bot: MemoryBot;
		const errors: { error: unknown; context: MemoryErrorContext }[] = [];
		const recoveries: MemoryStoreRecovery[] = [];
		let loggedErrors: MockInstance;
		let loggedInfo: MockInstance;
		const healthyLatency: number[] = [];

		beforeAll(async () => {
			server = await makeServer();
			if (server.skipReason) return console.warn(`[memory tests] skipping the ${server.name} outage suite: ${server.skipReason}`);
			await server.start();
			bot = await startMemoryBot({ storeUrl: server.url, config: { storeTimeoutMs: STORE_TIMEOUT_MS, sweepIntervalMinutes: 0 } });
			bot.client.on(MemoryEvents.Error, (error, context) => errors.push({ error, context }));
			bot.client.on(MemoryEvents.StoreRecovered, (recovery) => recoveries.push(recovery));
			loggedErrors = vi.spyOn(container.logger, 'error');
			loggedInfo = vi.spyOn(container.logger, 'info');
		}, 40_000);

		afterAll(async () => {
			server?.thaw?.();
			await bot?.stop();
			await server?.dispose();
		});

		const memoryLines = (spy: MockInstance, text: string) =>
			spy.mock.calls.filter((call) => String(call[0]).startsWith('[memory]') && call.join(' ').includes(text));

		/** Sends messages until one is captured again (the client reconnects on its own backoff); resolves with the time it took. */
		async function untilRecovered(): Promise<number> {
			const started = Date.now();
			await vi.waitFor(() => container.memory.status(ALICE.id), { timeout: 15_000, interval: 100 });
			return Date.now() - started;
		}

		it(
			'GIVEN a conversation WHEN the server is killed ' +
				'THEN every message still gets a reply without memory, captures fail and are counted, and one error is reported',
			async ({ skip }) => {
				if (server.skipReason) return skip(server.skipReason);
				await converse(bot, ALICE.id, GENERAL, 'my sister Ines lives in Lisbon');
				for (const content of ['we are planning a trip', 'maybe in June']) {
					const { exchange, latencyMs } = await replyTo(bot, BOB.id, RANDOM, content);
					healthyLatency.push(latencyMs);
					expect(exchange.reply.content).toBe(`noted "${content}"`);
				}
				await vi.waitFor(() => expect(container.memory.stats().turnsRecorded).toBe(3));
				expect(errors).toEqual([]);

				await server.kill();
				// Quiet for a moment, as a bot between messages: idle connections die idle (pg's pool then emits an error no query takes).
				await new Promise((resolve) => setTimeout(resolve, 300));
				const outage: number[] = [];
				const messages = Array.from({ length: 8 }, (_, index) => ({
					author: index % 2 ? BOB.id : ALICE.id,
					channelId: index % 3 ? GENERAL : RANDOM,
					content: `while the store is down ${index}`
				}));
				// One after another, then four at once.
				for (const message of messages.slice(0, 4))
					outage.push((await replyTo(bot, message.author, message.channelId, message.content)).latencyMs);
				const together = await Promise.all(
					messages.slice(4).map((message) => replyTo(bot, message.author, message.channelId, message.content))
				);
				outage.push(...together.map((result) => result.latencyMs));
				for (const message of messages)
					expect(
						exchanges.get(String(bot.fake.messagesIn(message.channelId).find((sent) => sent.content === message.content)?.id))?.context
							.text,
						message.content
					).toBe('');
				await vi.waitFor(() => expect(container.memory.stats().turnsFailed).toBe(messages.length));

				const stats = container.memory.stats();
				console.info(
					`[outage ${server.name}] killed: ${messages.length} replies, median ${median(outage)} ` +
						`ms, slowest ${Math.max(...outage)} ms (healthy: median ${median(healthyLatency)} ms); ` +
						`${stats.store.unavailableCalls} store calls failed; errors reported: ${errors.length}`
				);
				expect(Math.max(...outage)).toBeLessThan(STORE_TIMEOUT_MS);
				expect(stats).toMatchObject({
					turnsRecorded: 3,
					turnsFailed: messages.length,
					contextsFailed: messages.length,
					store: { available: false, outages: 1 }
				});
				expect(stats.store.unavailableCalls).toBeGreaterThanOrEqual(2 * messages.length);
				expect(errors).toHaveLength(1);
				expect(errors[0]!.context).toEqual({ phase: 'store' });
				expect(errors[0]!.error).toBeInstanceOf(MemoryError);
				expect(errors[0]!.error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
				expect(memoryLines(loggedErrors, 'STORE_UNAVAILABLE')).toHaveLength(1);
			}
		);

		it(
			'WHEN the server is back THEN the plugin tells it once, the next turn is recorded, ' +
				'and the memory from before the outage is in its context',
			async ({ skip }) => {
				if (server.skipReason) return skip(server.skipReason);
				await server.start();
				const recoveredIn = await untilRecovered();
				expect(recoveries).toHaveLength(1);
				expect(memoryLines(loggedInfo, 'store recovered')).toHaveLength(1);

				const { result, exchange } = await converse(bot, ALICE.id, GENERAL, 'where does my sister live again?');
				expect(result.written).toBe(true);
				expect(exchange.context.text).toContain('my sister Ines lives in Lisbon');
				// What was said during the outage was never captured, so no context shows it; the next turn's history brings it in.
				expect(exchange.context.text).not.toContain('while the store is down');
				const general = await bot.inspect.serverEntry(GUILD_ID, GENERAL, SOL.id).read();
				expect(general?.messages.map((message) => message.text)).toContain('while the store is down 7');
				const stats = container.memory.stats();
				console.info(
					`[outage ${server.name}] back: recovered ${recoveredIn} ms after the server answered; ` +
						`down ${recoveries[0]!.downMs} ms, ${recoveries[0]!.failedCalls} failed calls`
				);
				expect(stats.store).toMatchObject({ available: true, outages: 1, lastOutage: { endedAt: expect.any(Number) } });
				expect(errors).toHaveLength(1);
			}
		);

		it(
			'WHEN the server freezes (connections open, no answers) ' +
				'THEN each reply waits one store timeout at most, the outage is reported once, and thawing recovers',
			async ({ skip }) => {
				if (server.skipReason) return skip(server.skipReason);
				if (!server.freeze || !server.thaw)
					return skip(`${server.name}: not frozen here (the store timeout is the same code on every backend)`);
				server.freeze();
				const frozen: number[] = [];
				for (const index of [0, 1, 2]) {
					const { exchange, latencyMs } = await replyTo(bot, BOB.id, GENERAL, `is anyone there ${index}`);
					expect(exchange.context.text).toBe('');
					frozen.push(latencyMs);
				}
				console.info(`[outage ${server.name}] frozen: replies in ${frozen.join(', ')} ms (store timeout ${STORE_TIMEOUT_MS} ms)`);
				expect(Math.max(...frozen)).toBeLessThan(STORE_TIMEOUT_MS + 1000);
				await vi.waitFor(() => expect(errors).toHaveLength(2), { timeout: 5000 });
				expect(errors[1]!.error).toMatchObject({
					code: 'STORE_UNAVAILABLE',
					message: expect.stringContaining(`within ${STORE_TIMEOUT_MS} ms`)
				});

				server.thaw();
				await untilRecovered();
				expect(recoveries).toHaveLength(2);
				const { result } = await converse(bot, BOB.id, GENERAL, 'good, you are back');
				expect(result.written).toBe(true);
				expect(container.memory.stats().store).toMatchObject({ available: true, outages: 2 });
				expect(errors).toHaveLength(2);
			}
		);
	});
}
