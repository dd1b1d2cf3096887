import '../../src/register';
import { container, LogLevel, SapphireClient } from '@sapphire/framework';
import { GatewayIntentBits } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryError } from '../../src';
import { FakeDiscord } from '../../tools/fake-discord';
import { ALICE, GENERAL, GUILD_ID } from '../support/memory-bot';

describe('GIVEN a bot whose memory options are wrong in several ways', () => {
	let fake: FakeDiscord;
	let client: SapphireClient;

	beforeAll(async () => {
		fake = await FakeDiscord.start({
			users: [ALICE],
			guilds: [{ id: GUILD_ID, name: 'test-guild', channels: [{ id: GENERAL, name: 'general' }], members: [{ userId: ALICE.id }] }]
		});
	});

	afterAll(async () => {
		await client?.destroy();
		await fake?.close();
	});

	it('THEN the client is built, and its login rejects with one MemoryError naming every bad option, before anything reaches Discord', async () => {
		client = new SapphireClient({
			intents: [GatewayIntentBits.Guilds],
			rest: { api: fake.restUrl },
			baseUserDirectory: null,
			logger: { level: LogLevel.Fatal },
			memory: {
				sessionCommandName: 'Memory Bot',
				commandGuildIds: ['not-a-guild'],
				config: { ttlHour: 48 } as never,
				storeUrl: 'sqlite://:memory:'
			}
		});

		const login = client.login('fake-token');

		await expect(login).rejects.toBeInstanceOf(MemoryError);
		await expect(login).rejects.toThrow(
			[
				'Invalid memory configuration, 3 settings:',
				'  memory.sessionCommandName: expected 1 to 32 lower-case letters, digits, - or _ (Discord’s rule for a command name).',
				'  memory.commandGuildIds.0: expected a guild id (17 to 20 digits).',
				'  memory.config.ttlHour: not a setting of the engine; did you mean ttlHours?'
			].join('\n')
		);
		expect(fake.requests).toEqual([]);
		expect(fake.commands()).toEqual([]);
		expect(container.memory).toBeUndefined();
	});
});
