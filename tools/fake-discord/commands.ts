import { EventEmitter, once } from 'node:events';
import { ApplicationCommandType } from 'discord.js';
import type { SnowflakeGenerator } from './snowflakes';
import type { ApiObject } from './types';

const GLOBAL = 'global';

/**
 * The application commands the bot registered, globally and per guild, echoed back with ids the way
 * Discord does: a bulk overwrite keeps the id of a command whose name and type it already had.
 */
export class CommandRegistry {
	readonly #scopes = new Map<string, ApiObject[]>();
	readonly #events = new EventEmitter();
	readonly #snowflakes: SnowflakeGenerator;
	readonly #applicationId: string;

	public constructor(snowflakes: SnowflakeGenerator, applicationId: string) {
		this.#snowflakes = snowflakes;
		this.#applicationId = applicationId;
	}

	/** The commands of a guild, or the global ones when no guild is given. */
	public list(guildId?: string): ApiObject[] {
		return [...(this.#scopes.get(guildId ?? GLOBAL) ?? [])];
	}

	public get(commandId: string, guildId?: string): ApiObject | undefined {
		return this.list(guildId).find((command) => command.id === commandId);
	}

	/** The command a user would see under a name: the guild's first, then the global one. */
	public findByName(name: string, guildId?: string, type: number = ApplicationCommandType.ChatInput): ApiObject | undefined {
		const matches = (command: ApiObject) => command.name === name && command.type === type;
		return (guildId ? this.list(guildId).find(matches) : undefined) ?? this.list().find(matches);
	}

	/** `PUT …/commands`: replaces every command of the scope. */
	public overwrite(bodies: ApiObject[], guildId?: string): ApiObject[] {
		const previous = this.list(guildId);
		const next = bodies.map((body) => {
			const kept = previous.find((command) => command.name === body.name && command.type === (body.type ?? ApplicationCommandType.ChatInput));
			return this.#build(body, guildId, kept?.id as string | undefined);
		});
		this.#set(guildId, next);
		return next;
	}

	/** `POST …/commands`: creates a command, or replaces the one of the same name and type. */
	public upsert(body: ApiObject, guildId?: string): ApiObject {
		const type = body.type ?? ApplicationCommandType.ChatInput;
		const previous = this.list(guildId);
		const kept = previous.find((command) => command.name === body.name && command.type === type);
		const command = this.#build(body, guildId, kept?.id as string | undefined);
		this.#set(guildId, [...previous.filter((existing) => existing !== kept), command]);
		return command;
	}

	/** `PATCH …/commands/:id`. */
	public edit(commandId: string, body: ApiObject, guildId?: string): ApiObject | undefined {
		const previous = this.get(commandId, guildId);
		if (!previous) return undefined;
		const command = this.#build({ ...previous, ...body }, guildId, commandId);
		this.#set(
			guildId,
			this.list(guildId).map((existing) => (existing.id === commandId ? command : existing))
		);
		return command;
	}

	/** `DELETE …/commands/:id`. */
	public delete(commandId: string, guildId?: string): boolean {
		const previous = this.list(guildId);
		this.#set(
			guildId,
			previous.filter((command) => command.id !== commandId)
		);
		return previous.length !== this.list(guildId).length;
	}

	/** Resolves with the command once one of that name (and type: a slash command by default) is registered (at once if it is). */
	public async waitFor(name: string, guildId?: string, timeoutMs = 5000, type: number = ApplicationCommandType.ChatInput): Promise<ApiObject> {
		const signal = AbortSignal.timeout(timeoutMs);
		for (;;) {
			const command = this.findByName(name, guildId, type);
			if (command) return command;
			await once(this.#events, 'change', { signal }).catch(() => {
				throw new Error(`fake Discord: no command named ${name} was registered within ${timeoutMs} ms`);
			});
		}
	}

	#set(guildId: string | undefined, commands: ApiObject[]): void {
		this.#scopes.set(guildId ?? GLOBAL, commands);
		this.#events.emit('change');
	}

	#build(body: ApiObject, guildId: string | undefined, id: string | undefined): ApiObject {
		return {
			type: ApplicationCommandType.ChatInput,
			description: '',
			options: [],
			default_member_permissions: null,
			nsfw: false,
			name_localizations: null,
			description_localizations: null,
			...body,
			id: id ?? this.#snowflakes.next(),
			application_id: this.#applicationId,
			version: this.#snowflakes.next(),
			...(guildId ? { guild_id: guildId } : {})
		};
	}
}
