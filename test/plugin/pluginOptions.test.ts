import '../../src/register';
import { SapphireClient } from '@sapphire/framework';
import { GatewayIntentBits, PermissionFlagsBits } from 'discord.js';
import { describe, expect, it, vi } from 'vitest';
import { MemoryError } from '../../src';
import { DEFAULT_SESSION_COOLDOWNS, pluginOptions, resolvePluginOptions } from '../../src/plugin/pluginOptions';

/** The plugin's options: checked once at register, every bad field named at once, the defaults in one place. */
describe('GIVEN the plugin options', () => {
	it('WHEN none are given THEN every default is there', () => {
		expect(resolvePluginOptions(undefined)).toEqual({
			resolvePrivacyLevel: null,
			defaultErrorListener: true,
			sessionCommand: true,
			sessionCommandName: 'session',
			sessionStrings: {},
			commandGuildIds: [],
			moderatorPermission: PermissionFlagsBits.ManageMessages,
			confirmationTimeoutMs: 60_000,
			sessionCooldowns: DEFAULT_SESSION_COOLDOWNS,
			metrics: {}
		});
	});

	it('WHEN cooldowns are changed field by field, or turned off THEN the rest keep their defaults', () => {
		expect(
			resolvePluginOptions({ sessionCooldowns: { export: { delay: 300_000 }, privacy: false, clear: { delay: 0 } } }).sessionCooldowns
		).toEqual({
			export: { delay: 300_000, limit: 1 }
		});
		expect(resolvePluginOptions({ sessionCooldowns: false }).sessionCooldowns).toEqual({});
	});

	it('WHEN several fields are bad THEN one INVALID_CONFIG names each of them, with what it expects', () => {
		const options = {
			sessionCommandName: 'My Session!',
			confirmationTimeoutMs: 0,
			commandGuildIds: ['not-a-guild'],
			moderatorPermission: 'NotAPermission',
			sessionCooldowns: { export: { delay: -1 } },
			metrics: 'yes',
			sesionCommand: false,
			resolvePrivacyLevel: 'FULL'
		};
		let error: unknown;
		try {
			resolvePluginOptions(options as never);
		} catch (thrown) {
			error = thrown;
		}
		expect(error).toBeInstanceOf(MemoryError);
		expect(error).toMatchObject({ code: 'INVALID_CONFIG' });
		const { message } = error as Error;
		expect(message).toMatch(/^Invalid memory configuration, 8 settings:\n/);
		for (const field of [
			'memory.sessionCommandName: expected 1 to 32 lower-case letters',
			'memory.confirmationTimeoutMs:',
			'memory.commandGuildIds.0: expected a guild id',
			'memory.moderatorPermission: expected a permission',
			'memory.sessionCooldowns',
			'memory.metrics',
			'memory.sesionCommand: not an option of the plugin; did you mean sessionCommand?',
			'memory.resolvePrivacyLevel: expected a function'
		])
			expect(message, field).toContain(field);
	});

	it('WHEN memory.config holds a key that is no setting THEN it is named with the closest setting, not dropped', () => {
		expect(() => resolvePluginOptions({ config: { ttlHour: 48 } as never })).toThrow(
			'Invalid memory configuration: memory.config.ttlHour: not a setting of the engine; did you mean ttlHours?'
		);
	});

	it('WHEN a client is built with bad options THEN it is built, and its login rejects naming every bad option and setting at once', async () => {
		const client = new SapphireClient({
			intents: [GatewayIntentBits.Guilds],
			memory: { sessionCommandName: 'Memory Bot', confirmationTimeoutMs: 0, config: { maxOtherChannels: 99 } }
		});
		vi.stubEnv('MEMORY_CONTEXT_TOKEN_BUDGET', 'lots');
		const login = client.login('never-sent');
		await expect(login).rejects.toBeInstanceOf(MemoryError);
		await expect(login).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
		await expect(login).rejects.toThrow(
			[
				'Invalid memory configuration, 4 settings:',
				'  memory.sessionCommandName: expected 1 to 32 lower-case letters, digits, - or _ (Discord’s rule for a command name).',
				'  memory.confirmationTimeoutMs: Too small: expected number to be >=1.',
				'  memory.config.maxOtherChannels=99 (SHORT_TERM_MEMORY_MAX_OTHER_CHANNELS); expected a whole number from 0 to 20.',
				'  MEMORY_CONTEXT_TOKEN_BUDGET="lots"; expected a whole number of tokens from 50 to 16000.'
			].join('\n')
		);
		vi.unstubAllEnvs();
		await client.destroy();
	});

	it('WHEN a client is built with good options THEN they are resolved once', () => {
		const client = new SapphireClient({
			intents: [GatewayIntentBits.Guilds],
			memory: { confirmationTimeoutMs: 120_000, sessionCommandName: 'memoire' }
		});
		expect(pluginOptions(client)).toMatchObject({ confirmationTimeoutMs: 120_000, sessionCommandName: 'memoire', sessionCommand: true });
		void client.destroy();
	});
});
