import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApplicationCommandType, GatewayDispatchEvents, InteractionResponseType } from 'discord.js';
import {
	buttonData,
	runCommand,
	runMessageCommand,
	selectData,
	sendUserMessage,
	useComponent,
	type AutocompleteInput,
	type ClickButtonInput,
	type FakeInteraction,
	type MessageCommandInput,
	type SelectMenuInput,
	type SlashCommandInput,
	type UserMessageInput
} from './actions';
import { AttachmentStore } from './attachments';
import { CommandRegistry } from './commands';
import type { FakeContext } from './context';
import { FakeGateway } from './gateway/FakeGateway';
import { gatewayHooks } from './gateway/hooks';
import { InteractionLog } from './interactionLog';
import { MessageLog } from './messages';
import { RequestRecorder, type RequestPredicate } from './recorder';
import { createRequestHandler } from './restServer';
import { Router } from './router';
import { channelRoutes } from './routes/channels';
import { commandRoutes } from './routes/commands';
import { gatewayAndUserRoutes } from './routes/gatewayAndUsers';
import { guildRoutes } from './routes/guilds';
import { interactionRoutes } from './routes/interactions';
import { SnowflakeGenerator } from './snowflakes';
import { FakeState } from './state';
import type { ApiObject, FakeChannelInit, FakeDiscordOptions, InteractionAnswer, RecordedRequest } from './types';

/**
 * A local Discord, REST and gateway on one random port of 127.0.0.1, that a real `SapphireClient`
 * logs in to. Tests and `npm run demo` act as users (messages, slash commands, autocomplete, buttons) and read
 * what the bot sent back, which the fake records request by request.
 *
 * @example
 * const fake = await FakeDiscord.start({
 * 	users: [{ id: '200000000000000001', username: 'alice' }],
 * 	guilds: [{ id: '300000000000000001', channels: [{ id: '300000000000000002' }], members: [{ userId: '200000000000000001' }] }]
 * });
 * const client = new SapphireClient({ intents, rest: { api: fake.restUrl }, baseUserDirectory: null });
 * await client.login('fake-token');
 * const { id } = fake.slashCommand({ name: 'ping', user: '200000000000000001', channelId: '300000000000000002' });
 * const response = await fake.waitForInteractionResponse(id); // { method: 'POST', body: { type: 4, data: { content: 'Pong!' } }, … }
 * await client.destroy();
 * await fake.close();
 */
export class FakeDiscord {
	/** Users, guilds, channels, roles and members. */
	public readonly state: FakeState;
	/** The gateway; `gateway.received` holds what the client sent on it. */
	public readonly gateway: FakeGateway;
	readonly #context: FakeContext;
	readonly #recorder: RequestRecorder;
	readonly #server: Server;
	readonly #origin: string;

	private constructor(context: FakeContext, recorder: RequestRecorder, server: Server, origin: string) {
		this.#context = context;
		this.#recorder = recorder;
		this.#server = server;
		this.#origin = origin;
		this.state = context.state;
		this.gateway = context.gateway;
	}

	/** `http://127.0.0.1:PORT/api`, for `new SapphireClient({ rest: { api: fake.restUrl } })`. */
	public get restUrl(): string {
		return `${this.#origin}/api`;
	}

	/** `ws://127.0.0.1:PORT/gateway`, what `GET /gateway/bot` answers. */
	public get gatewayUrl(): string {
		return this.#context.gatewayUrl();
	}

	public get botUser(): ApiObject {
		return this.state.botUser;
	}

	/** Every REST request so far, in arrival order. */
	public get requests(): readonly RecordedRequest[] {
		return this.#recorder.all;
	}

	/**
	 * Requests the fake could not serve, answered with code 0: 404 for a route it does not know,
	 * 400 when one of its routes failed. A test that sees one found a gap in the fake.
	 */
	public unhandledRequests(): RecordedRequest[] {
		return this.requests.filter((request) => (request.response as ApiObject | undefined)?.code === 0);
	}

	/** Resolves with the first recorded request, past or future, that matches. */
	public waitFor(predicate: RequestPredicate, timeoutMs?: number): Promise<RecordedRequest> {
		return this.#recorder.waitFor(predicate, timeoutMs);
	}

	/** Every request the bot made about an interaction: its callback, then follow-ups and edits through its webhook. */
	public interactionResponses(interactionId: string): RecordedRequest[] {
		return this.requests.filter((request) => this.#concerns(request, interactionId));
	}

	/** Resolves with the interaction's callback request (`body.type`, `body.data`, `files`). */
	public waitForInteractionResponse(interactionId: string, timeoutMs?: number): Promise<RecordedRequest> {
		return this.waitFor((request) => request.path.endsWith('/callback') && this.#concerns(request, interactionId), timeoutMs);
	}

	/**
	 * Resolves with the interaction's answer as the member sees it: the callback's own message (a reply, an update,
	 * autocomplete choices), or after a deferred callback (type 5 or 6, "thinking…") the edit of `@original` or the
	 * follow-up that fills it in; with how long the callback took from the dispatch.
	 */
	public async waitForAnswer(interactionId: string, timeoutMs?: number): Promise<InteractionAnswer> {
		const callback = await this.waitForInteractionResponse(interactionId, timeoutMs);
		const callbackAfterMs = callback.at - this.#context.interactions.byId(interactionId)!.dispatchedAt;
		const { type, data } = callback.body as { type: number; data?: ApiObject };
		if (type !== InteractionResponseType.DeferredChannelMessageWithSource && type !== InteractionResponseType.DeferredMessageUpdate)
			return { callback, callbackAfterMs, request: callback, data: data ?? {} };
		const request = await this.waitFor(
			(later) => later !== callback && (later.method === 'PATCH' || later.method === 'POST') && this.#concerns(later, interactionId),
			timeoutMs
		);
		return { callback, callbackAfterMs, request, data: (request.body ?? {}) as ApiObject };
	}

	/** The interaction's `@original` message as it stands now (after edits), if it has one. */
	public originalMessage(interactionId: string): ApiObject | undefined {
		const record = this.#context.interactions.byId(interactionId);
		return record?.originalMessageId ? this.#context.messages.find(record.originalMessageId) : undefined;
	}

	/** Every message of a channel, oldest first: users' and the bot's, ephemeral replies included. */
	public messagesIn(channelId: string): ApiObject[] {
		return this.#context.messages.inChannel(channelId);
	}

	/** The application commands the bot registered, in a guild or globally. */
	public commands(guildId?: string): ApiObject[] {
		return this.#context.commands.list(guildId);
	}

	/**
	 * Resolves with a command once the bot has registered it (global, or in the guild when given); `type` tells a message
	 * command (`ApplicationCommandType.Message`) from a slash command of the same name.
	 */
	public waitForCommand(name: string, options: { guildId?: string; timeoutMs?: number; type?: ApplicationCommandType } = {}): Promise<ApiObject> {
		return this.#context.commands.waitFor(name, options.guildId, options.timeoutMs, options.type);
	}

	/** A user sends a message: MESSAGE_CREATE is dispatched and the message joins the channel's history. */
	public sendMessage(input: UserMessageInput): ApiObject {
		return sendUserMessage(this.#context, input);
	}

	/** A user runs a slash command: INTERACTION_CREATE type 2 with options nested under subcommand (1) and group (2). */
	public slashCommand(input: SlashCommandInput): FakeInteraction {
		return runCommand(this.#context, input);
	}

	/** A user types into an autocomplete option: INTERACTION_CREATE type 4, that option `focused: true`. */
	public autocomplete(input: AutocompleteInput): FakeInteraction {
		return runCommand(this.#context, input);
	}

	/** A user runs a message command (the Apps menu on a message): INTERACTION_CREATE type 2, `data.type` 3, on that message. */
	public messageCommand(input: MessageCommandInput): FakeInteraction {
		return runMessageCommand(this.#context, input);
	}

	/** A user clicks a button: INTERACTION_CREATE type 3, component_type 2, with the message it sits on. */
	public clickButton(input: ClickButtonInput): FakeInteraction {
		return useComponent(this.#context, input, buttonData());
	}

	/** A user picks values in a select menu: INTERACTION_CREATE type 3 with `values`. */
	public selectMenu(input: SelectMenuInput): FakeInteraction {
		return useComponent(this.#context, input, selectData(input));
	}

	/** Adds a channel or thread to a guild and tells the client (CHANNEL_CREATE or THREAD_CREATE). */
	public addChannel(guildId: string, channel: FakeChannelInit): ApiObject {
		const api = this.state.addChannel(guildId, channel);
		const event = api.thread_metadata ? GatewayDispatchEvents.ThreadCreate : GatewayDispatchEvents.ChannelCreate;
		this.gateway.broadcast(event, api.thread_metadata ? { ...api, newly_created: true } : api);
		return api;
	}

	/** Dispatches any event as is, for what the helpers do not cover. */
	public dispatch(event: string, data: ApiObject): void {
		this.gateway.dispatch(event, data);
	}

	/** Drops gateway connections and stops the server. Destroy the client first, or it will try to reconnect. */
	public async close(): Promise<void> {
		await this.gateway.close();
		this.#server.closeAllConnections();
		await new Promise<void>((resolve, reject) => this.#server.close((error) => (error ? reject(error) : resolve())));
	}

	#concerns(request: RecordedRequest, interactionId: string): boolean {
		const record = this.#context.interactions.byId(interactionId);
		if (!record) return false;
		const webhook = `/webhooks/${this.state.applicationId}/${record.token}`;
		return (
			request.path === `/interactions/${interactionId}/${record.token}/callback` ||
			request.path === webhook ||
			request.path.startsWith(`${webhook}/`)
		);
	}

	/** Starts a fake Discord on a free port of 127.0.0.1. */
	public static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
		const snowflakes = new SnowflakeGenerator();
		const state = new FakeState(options, snowflakes);
		const recorder = new RequestRecorder();
		const server = createServer();
		let origin = '';
		const gateway = new FakeGateway(
			server,
			gatewayHooks(() => context),
			options.heartbeatIntervalMs ?? 41_250,
			String(state.botUser.id)
		);
		const context: FakeContext = {
			state,
			snowflakes,
			gateway,
			messages: new MessageLog(),
			attachments: new AttachmentStore(snowflakes, () => origin),
			commands: new CommandRegistry(snowflakes, state.applicationId),
			interactions: new InteractionLog(),
			gatewayUrl: () => `${origin.replace(/^http/, 'ws')}/gateway`
		};
		const router = new Router();
		for (const routes of [gatewayAndUserRoutes, guildRoutes, channelRoutes, commandRoutes, interactionRoutes]) routes(router, context);
		const handle = createRequestHandler(router, recorder, context.attachments);
		server.on('request', (request, response) => {
			handle(request, response).catch((error: unknown) => {
				if (!response.headersSent) response.writeHead(400, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ message: `fake Discord failed: ${String(error)}`, code: 0 }));
			});
		});
		server.listen(0, '127.0.0.1');
		await once(server, 'listening');
		origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		return new FakeDiscord(context, recorder, server, origin);
	}
}
