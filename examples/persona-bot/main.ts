import { container } from '@sapphire/framework';
import { Events } from 'discord.js';
import { createPersonaBot } from './bot';
import { type ChatModel, openAiCompatible } from './chat';
import { standInModel } from './standIn';

/**
 * `npm run example`: the persona bot on real Discord.
 *
 * DISCORD_TOKEN       the bot's token (required)
 * DISCORD_GUILD_ID    a test server to register /session in at once (optional; global otherwise)
 * LLM_BASE_URL        an OpenAI-compatible API, e.g. https://api.openai.com/v1 (optional: without it, the stand-in answers)
 * LLM_API_KEY         its key, if it needs one
 * LLM_MODEL           @default gpt-4o-mini
 * MEMORY_STORE_URL    where memory is kept @default sqlite://./data/memory.sqlite
 */
function modelFromEnv(env: NodeJS.ProcessEnv): { model: ChatModel; label: string } {
	const baseUrl = env.LLM_BASE_URL?.trim();
	if (!baseUrl) return { model: standInModel, label: 'the deterministic stand-in (set LLM_BASE_URL for a real model)' };
	const model = env.LLM_MODEL?.trim() || 'gpt-4o-mini';
	return { model: openAiCompatible({ baseUrl, apiKey: env.LLM_API_KEY?.trim() || undefined, model }), label: `${model} at ${baseUrl}` };
}

const token = process.env.DISCORD_TOKEN?.trim();
if (!token) {
	console.error(
		[
			'npm run example needs a Discord bot token: DISCORD_TOKEN=… npm run example',
			'  1. https://discord.com/developers/applications → New Application → Bot → Reset Token (copy it)',
			'  2. on the same page, turn on the Message Content intent',
			'  3. invite it with the scopes bot and applications.commands (OAuth2 → URL Generator)',
			'Optional: DISCORD_GUILD_ID=<your test server> registers /session there at once;',
			'LLM_BASE_URL, LLM_API_KEY and LLM_MODEL point it at an OpenAI-compatible endpoint.',
			'Without Discord at all, `npm run demo` plays a scripted conversation on a local fake Discord.'
		].join('\n')
	);
	process.exit(1);
}

const { model, label } = modelFromEnv(process.env);
const guildId = process.env.DISCORD_GUILD_ID?.trim();
const { client, persona } = createPersonaBot({ model, memory: guildId ? { commandGuildIds: [guildId] } : {} });

client.once(Events.ClientReady, () => {
	container.logger.info(
		`[example] logged in as ${client.user?.tag}; ${persona.definition.name} answers mentions, "${persona.definition.name}, …" and DMs; ` +
			`replies from ${label}.`
	);
	container.logger.info(`[example] memory in ${container.memory.config.storeUrl}; try /session status. Ctrl-C to stop.`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
	process.once(signal, () => {
		void client.destroy().finally(() => process.exit(0));
	});
}

void client.login(token).catch((error: unknown) => {
	console.error('[example] login failed:', error instanceof Error ? error.message : error);
	process.exit(1);
});
