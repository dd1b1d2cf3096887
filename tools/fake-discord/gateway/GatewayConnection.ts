import { randomUUID } from 'node:crypto';
import { GatewayOpcodes } from 'discord.js';
import type { WebSocket } from 'ws';
import type { ApiObject } from '../types';
import { IdentifyCompressEncoder, type FrameEncoder } from './encoding';

/** One client's gateway session: its sequence numbers, intents and frame encoding. */
export class GatewayConnection {
	public readonly sessionId = randomUUID().replaceAll('-', '');
	/** The intents of the IDENTIFY; 0 until then. */
	public intents = 0;
	/** Whether the client identified (or resumed) and so receives dispatches. */
	public identified = false;
	readonly #socket: WebSocket;
	#encoder: FrameEncoder;
	#sequence = 0;
	#queue: Promise<void> = Promise.resolve();

	public constructor(socket: WebSocket, encoder: FrameEncoder) {
		this.#socket = socket;
		this.#encoder = encoder;
	}

	/** Switches to per-frame compression, as an IDENTIFY with `compress: true` asks. */
	public useIdentifyCompress(): void {
		this.#encoder.close();
		this.#encoder = new IdentifyCompressEncoder();
	}

	/** Sends a dispatch (op 0) with the next sequence number. */
	public dispatch(event: string, data: unknown): Promise<void> {
		this.#sequence += 1;
		return this.send({ op: GatewayOpcodes.Dispatch, t: event, s: this.#sequence, d: data });
	}

	/** Sends a payload; payloads leave in the order they were given, whatever their encoding costs. */
	public send(payload: ApiObject): Promise<void> {
		const sent = this.#queue.then(async () => {
			const frame = await this.#encoder.encode(payload);
			if (this.#socket.readyState === this.#socket.OPEN) this.#socket.send(frame);
		});
		// One payload that cannot be encoded fails its own send, not every later one.
		this.#queue = sent.catch(() => undefined);
		return sent;
	}

	/** Ends the connection at once, as a server going away does. */
	public terminate(): void {
		this.#encoder.close();
		this.#socket.terminate();
	}
}
