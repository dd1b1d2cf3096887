import { constants, createDeflate, deflateSync, type Deflate } from 'node:zlib';
import type { ApiObject } from '../types';

/** Turns a gateway payload into the frame a client asked for. */
export interface FrameEncoder {
	encode(payload: ApiObject): Promise<string | Buffer>;
	close(): void;
}

/** Plain JSON text frames (`encoding=json`, no `compress`): what discord.js uses unless zlib-sync is installed. */
class JsonEncoder implements FrameEncoder {
	public encode(payload: ApiObject): Promise<string> {
		return Promise.resolve(JSON.stringify(payload));
	}

	public close(): void {}
}

/** Identify compression (`compress: true` in IDENTIFY): each frame is its own zlib stream, sent as binary. */
export class IdentifyCompressEncoder implements FrameEncoder {
	public encode(payload: ApiObject): Promise<Buffer> {
		return Promise.resolve(deflateSync(JSON.stringify(payload)));
	}

	public close(): void {}
}

const SYNC_FLUSH_SUFFIX = Buffer.from([0x00, 0x00, 0xff, 0xff]);

/**
 * Transport compression (`compress=zlib-stream`): one zlib stream for the whole connection, each
 * frame ending in a sync flush (`00 00 ff ff`), as discord.js with zlib-sync expects.
 * Callers must not encode two payloads at once; a frame is complete when its output ends in the flush marker.
 */
class ZlibStreamEncoder implements FrameEncoder {
	readonly #deflate: Deflate = createDeflate();
	#pending: Buffer[] = [];
	#resolve: ((frame: Buffer) => void) | undefined;

	public constructor() {
		this.#deflate.on('data', (chunk: Buffer) => {
			this.#pending.push(chunk);
			const frame = Buffer.concat(this.#pending);
			if (!frame.subarray(-4).equals(SYNC_FLUSH_SUFFIX)) return;
			this.#pending = [];
			this.#resolve?.(frame);
		});
	}

	public encode(payload: ApiObject): Promise<Buffer> {
		return new Promise((resolve) => {
			this.#resolve = resolve;
			this.#deflate.write(JSON.stringify(payload));
			this.#deflate.flush(constants.Z_SYNC_FLUSH);
		});
	}

	public close(): void {
		this.#deflate.close();
	}
}

/** The encoder for a connection's query (`?v=10&encoding=json&compress=zlib-stream`); throws for what the fake cannot speak. */
export function encoderFor(query: URLSearchParams): FrameEncoder {
	const encoding = query.get('encoding') ?? 'json';
	if (encoding !== 'json') throw new Error(`fake Discord gateway: encoding=${encoding} is not supported (json only)`);
	const compress = query.get('compress');
	if (compress === null) return new JsonEncoder();
	if (compress === 'zlib-stream') return new ZlibStreamEncoder();
	throw new Error(`fake Discord gateway: compress=${compress} is not supported (zlib-stream only)`);
}
