// In your bot: import 'sapphire-plugin-memory/register';
import '../../src/register';
import { ApplicationCommandRegistries, LogLevel, RegisterBehavior, SapphireClient } from '@sapphire/framework';
import { Events, GatewayIntentBits, Partials } from 'discord.js';
import type { MemoryPluginOptions } from '../../src';
import type { ChatModel } from './chat';
import { Persona, type PersonaDefinition, type PersonaObserver, SOL } from './persona';

/** What {@link createPersonaBot} builds. */
export interface PersonaBotOptions {
	/** Generates the replies: `openAiCompatible(…)` or `standInModel`. */
	model: ChatModel;
	/** @default SOL */
	persona?: PersonaDefinition;
	/** The plugin's options; they override the environment (`MEMORY_STORE_URL`, …). */
	memory?: MemoryPluginOptions;
	/** Another Discord API, such as the demo's fake Discord (`fake.restUrl`). @default Discord */
	restApi?: string;
	observer?: PersonaObserver;
	/** @default LogLevel.Info */
	logLevel?: LogLevel;
}

/**
 * A Sapphire bot with memory: the plugin (`/session`, the capture listener, `container.memory`) and a
 * persona that answers when mentioned, called by name, or in DMs. Log it in with `client.login(token)`.
 * @example
 * const { client } = createPersonaBot({ model: standInModel });
 * await client.login(process.env.DISCORD_TOKEN);
 */
export function createPersonaBot(options: PersonaBotOptions): { client: SapphireClient; persona: Persona } {
	// One bulk overwrite of the bot's commands when they changed, instead of one request per command.
	ApplicationCommandRegistries.setDefaultBehaviorWhenNotIdentical(RegisterBehavior.BulkOverwrite);
	const client = new SapphireClient({
		// MessageContent is privileged: enable it for the application in the Developer Portal.
		intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages],
		// DM channels are not cached until a message arrives in one.
		partials: [Partials.Channel],
		// All the pieces come from the plugin; this bot has no folders of its own to load.
		baseUserDirectory: null,
		logger: { level: options.logLevel ?? LogLevel.Info },
		...(options.restApi ? { rest: { api: options.restApi } } : {}),
		memory: options.memory ?? {}
	});
	const persona = new Persona(options.model, options.persona ?? SOL, options.observer);
	client.on(Events.MessageCreate, (message) => void persona.handle(message));
	return { client, persona };
}
