import './lib/setup';

import { container, LogLevel, SapphireClient } from '@sapphire/framework';
import { GatewayIntentBits } from 'discord.js';
import { FakeDiscord } from 'sapphire-plugin-memory/testing';

const MAYA = '200000000000000001';
const GUILD = '300000000000000001';
const GENERAL = '300000000000000002';

/** Logs in to a fake Discord, asks `/session status` as Maya, erases her, prints the answer and what `container.memory` says as JSON. */
const main = async () => {
	const fake = await FakeDiscord.start({
		users: [{ id: MAYA, username: 'maya' }],
		guilds: [{ id: GUILD, name: 'harbour', channels: [{ id: GENERAL, name: 'general' }], members: [{ userId: MAYA }] }]
	});
	const client = new SapphireClient({
		intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages],
		logger: { level: LogLevel.Warn },
		baseUserDirectory: null,
		rest: { api: fake.restUrl },
		// The plugin's options, typed by the register import alone; the store is MEMORY_STORE_URL's.
		memory: { config: { contextTokenBudget: 1200 }, commandGuildIds: [GUILD] }
	});
	try {
		await client.login('fake-token');
		await fake.waitForCommand('session', { guildId: GUILD });
		const { id } = fake.slashCommand({ name: 'session', subcommand: 'status', user: MAYA, channelId: GENERAL });
		const { callback, data } = await fake.waitForAnswer(id);
		const budget: number = container.memory.config.contextTokenBudget;
		// A turn written, then time for the log's copy into the database, which runs in a worker thread that requires
		// better-sqlite3 from the package (checkpoints run every 50 ms; one that fails logs an error).
		await container.memory.recordTurn({
			userId: MAYA,
			userName: 'maya',
			serverId: GUILD,
			channelId: GENERAL,
			history: [{ role: 'user', authorId: MAYA, authorName: 'maya', text: 'the ferry leaves at nine' }],
			responses: [{ text: 'Noted: nine.', personaId: 'sol', personaName: 'Sol' }]
		});
		await new Promise((resolve) => setTimeout(resolve, 300));
		// An erasure ends with the SQLite file's rewrite, in a worker thread that requires better-sqlite3 from the package.
		const { entriesDeleted } = await container.memory.clearAll(MAYA);
		console.log(JSON.stringify({ callback: callback.body, answer: data, budget, erased: entriesDeleted }));
	} catch (error) {
		console.error(error instanceof Error ? error.message : error);
		process.exitCode = 1;
	} finally {
		await client.destroy();
		await fake.close();
	}
};

void main();
