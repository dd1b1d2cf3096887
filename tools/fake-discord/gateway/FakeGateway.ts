import { EventEmitter, once } from 'node:events';
import type { Server } from 'node:http';
import { GatewayDispatchEvents, GatewayOpcodes } from 'discord.js';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ApiObject } from '../types';
import { encoderFor } from './encoding';
import { GatewayConnection } from './GatewayConnection';
import { filterForIntents } from './intents';

/** What the fake Discord answers on the gateway beyond the protocol itself. */
export interface GatewayHooks {
	/** Sends READY, then a GUILD_CREATE per guild, to a client that identified. */
	onIdentify(connection: GatewayConnection): Promise<void>;
	/** Answers op 8 (Request Guild Members) with GUILD_MEMBERS_CHUNK. */
	onRequestGuildMembers(connection: GatewayConnection, request: ApiObject): Promise<void>;
}

/** The gateway at `ws://127.0.0.1:PORT/gateway`: Hello, heartbeats, IDENTIFY/RESUME, and dispatches to identified clients. */
export class FakeGateway {
	/** Every payload clients sent, in order (IDENTIFY, heartbeats, presence updates, …). */
	public readonly received: ApiObject[] = [];
	readonly #server: WebSocketServer;
	readonly #connections = new Set<GatewayConnection>();
	readonly #events = new EventEmitter();
	readonly #hooks: GatewayHooks;
	readonly #heartbeatIntervalMs: number;
	readonly #botId: string;
	/** Resumes carry no intents; the fake has one bot, so it reuses those of the last IDENTIFY. */
	#lastIntents = 0;

	public constructor(httpServer: Server, hooks: GatewayHooks, heartbeatIntervalMs: number, botId: string) {
		this.#hooks = hooks;
		this.#heartbeatIntervalMs = heartbeatIntervalMs;
		this.#botId = botId;
		this.#server = new WebSocketServer({ server: httpServer, path: '/gateway' });
		this.#server.on('connection', (socket, request) => this.#accept(socket, new URL(request.url ?? '/', 'ws://fake').searchParams));
	}

	/** Sends an event to every identified client, filtered by its intents; returns how many got it. */
	public broadcast(event: string, data: ApiObject): number {
		let sent = 0;
		for (const connection of this.#connections) {
			const visible = connection.identified ? filterForIntents(connection.intents, event, data, this.#botId) : undefined;
			if (!visible) continue;
			void connection.dispatch(event, visible);
			sent += 1;
		}
		return sent;
	}

	/** Like `broadcast`, but throws when no client is there to receive, which in a test is a mistake. */
	public dispatch(event: string, data: ApiObject): void {
		if (![...this.#connections].some((connection) => connection.identified)) {
			throw new Error(`fake Discord: cannot dispatch ${event}, no client has identified on the gateway yet`);
		}
		this.broadcast(event, data);
	}

	/** Resolves once a client has identified (at once if one has). */
	public async waitForIdentify(timeoutMs = 5000): Promise<void> {
		if ([...this.#connections].some((connection) => connection.identified)) return;
		await once(this.#events, 'identified', { signal: AbortSignal.timeout(timeoutMs) });
	}

	/** Drops every connection and stops accepting new ones. */
	public async close(): Promise<void> {
		for (const connection of this.#connections) connection.terminate();
		this.#connections.clear();
		await new Promise<void>((resolve) => this.#server.close(() => resolve()));
	}

	#accept(socket: WebSocket, query: URLSearchParams): void {
		let connection: GatewayConnection;
		try {
			connection = new GatewayConnection(socket, encoderFor(query));
		} catch (error) {
			socket.close(4000, (error as Error).message.slice(0, 120));
			return;
		}
		this.#connections.add(connection);
		socket.on('close', () => this.#connections.delete(connection));
		socket.on('message', (data) => void this.#receive(connection, data));
		void connection.send({ op: GatewayOpcodes.Hello, d: { heartbeat_interval: this.#heartbeatIntervalMs } });
	}

	async #receive(connection: GatewayConnection, data: RawData): Promise<void> {
		// A Buffer: the server keeps ws's default `binaryType`.
		const payload = JSON.parse((data as Buffer).toString()) as ApiObject;
		this.received.push(payload);
		const d = (payload.d ?? {}) as ApiObject;
		switch (payload.op) {
			case GatewayOpcodes.Heartbeat:
				await connection.send({ op: GatewayOpcodes.HeartbeatAck });
				break;
			case GatewayOpcodes.Identify:
				connection.intents = Number(d.intents ?? 0);
				this.#lastIntents = connection.intents;
				if (d.compress === true) connection.useIdentifyCompress();
				connection.identified = true;
				await this.#hooks.onIdentify(connection);
				this.#events.emit('identified');
				break;
			case GatewayOpcodes.Resume:
				// Nothing is replayed: the fake keeps no backlog, so a resume just carries on.
				connection.intents = this.#lastIntents;
				connection.identified = true;
				await connection.dispatch(GatewayDispatchEvents.Resumed, {});
				break;
			case GatewayOpcodes.RequestGuildMembers:
				await this.#hooks.onRequestGuildMembers(connection, d);
				break;
			default:
				break;
		}
	}
}
