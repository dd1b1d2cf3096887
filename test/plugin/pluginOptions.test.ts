import '../../src/register';
import { SapphireClient } from '@sapphire/framework';
import { GatewayIntentBits, PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
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
		expect(message).toMatch(/^Invalid memory plugin options: /);
		for (const field of [
			'memory.sessionCommandName: expected 1 to 32 lower-case letters',
			'memory.confirmationTimeoutMs:',
			'memory.commandGuildIds.0: expected a guild id',
			'memory.moderatorPermission: expected a permission',
			'memory.sessionCooldowns',
			'memory.metrics',
			'memory.sesionCommand: not an option of the plugin',
			'memory.resolvePrivacyLevel: expected a function'
		])
			expect(message, field).toContain(field);
	});

	it('WHEN a client is built with a bad option THEN its construction stops with INVALID_CONFIG, before any piece loads', () => {
		expect(() => new SapphireClient({ intents: [GatewayIntentBits.Guilds], memory: { sessionCommandName: 'Session' } })).toThrow(
			/Invalid memory plugin options: memory\.sessionCommandName/
		);
		const client = new SapphireClient({
			intents: [GatewayIntentBits.Guilds],
			memory: { confirmationTimeoutMs: 120_000, sessionCommandName: 'memoire' }
		});
		expect(pluginOptions(client)).toMatchObject({ confirmationTimeoutMs: 120_000, sessionCommandName: 'memoire', sessionCommand: true });
		void client.destroy();
	});
});
