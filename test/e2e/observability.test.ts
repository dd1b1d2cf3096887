import '../../src/register';
import { container } from '@sapphire/framework';
import { register as defaultRegistry, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, converse, ephemeralAnswer, GENERAL, type MemoryBot, startMemoryBot } from '../support/memory-bot';

describe('observability in a bot: the moderators’ status line and the Prometheus metrics', () => {
	const registry = new Registry();
	let bot: MemoryBot | undefined;

	beforeAll(async () => {
		bot = await startMemoryBot({ metrics: { registry } });
		await converse(bot, ALICE.id, GENERAL, 'the lighthouse keeper retired');
		await converse(bot, BOB.id, GENERAL, 'the ferry runs on Sundays');
		// A turn with nothing in it is skipped, not captured.
		await container.memory.recordTurn({ userId: BOB.id, serverId: null, channelId: GENERAL, history: [], responses: [] });
	}, 60_000);

	afterAll(() => bot?.stop());

	const status = (user: string, channelId?: string) =>
		ephemeralAnswer(bot!.fake, bot!.fake.slashCommand({ name: 'session', subcommand: 'status', user, ...(channelId ? { channelId } : {}) }));

	it('WHEN Carol, a moderator (Manage Messages), asks /session status THEN she also sees the bot-wide counters', async () => {
		const { content } = await status(CAROL.id, GENERAL);
		const line = content.split('\n').at(-1)!;

		expect(line).toMatch(
			new RegExp(
				[
					String.raw`^Bot-wide: 2 turns captured \(1 skipped: 1 empty-history\), 2 contexts, `,
					String.raw`capture p50 [\d.]+ ms \/ p99 [\d.]+ ms, context p50 [\d.]+ ms \/ p99 [\d.]+ ms, store: up$`
				].join('')
			)
		);
	});

	it('WHEN Bob, a member without the permission, asks /session status THEN he sees only his own memory', async () => {
		const { content } = await status(BOB.id, GENERAL);

		expect(content).toContain('**Your memory**');
		expect(content).not.toContain('Bot-wide');
	});

	it('WHEN Alice asks in her DM THEN there are no moderators there and no bot-wide line', async () => {
		const { content } = await status(ALICE.id);

		expect(content).not.toContain('Bot-wide');
	});

	it('THEN the host’s registry shows the turns and contexts, read from memory.stats() at scrape time', async () => {
		const text = await registry.metrics();
		const stats = container.memory.stats();

		expect(text).toContain('sapphire_memory_turns_recorded_total 2\n');
		expect(text).toContain('sapphire_memory_turns_skipped_total{reason="empty-history"} 1\n');
		expect(text).toContain('sapphire_memory_contexts_built_total 2\n');
		expect(text).toContain(`sapphire_memory_context_tokens_total{tier="recent"} ${stats.tokensInjected.recent}\n`);
		expect(text).toContain(`sapphire_memory_capture_duration_seconds_count ${stats.latency.capture.count}\n`);
		expect(text).toContain('sapphire_memory_store_up 1\n');
	});

	it('THEN prom-client’s default registry got nothing: the host named its own', () => {
		expect(defaultRegistry.getSingleMetric('sapphire_memory_turns_recorded_total')).toBeUndefined();
	});

	it('WHEN the client is destroyed THEN its metrics leave the registry', async () => {
		await bot!.stop();
		bot = undefined;

		expect(await registry.metrics()).not.toContain('sapphire_memory_');
	});
});
