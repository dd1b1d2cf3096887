import { MessageFlags } from 'discord.js';
import type { ApiObject } from './types';

/** Which slice of a channel's history `GET /channels/:id/messages` asks for. */
export interface HistoryQuery {
	/** 1 to 100. @default 50 */
	limit?: number;
	before?: string;
	after?: string;
	around?: string;
}

/**
 * Every message of the fake Discord, per channel, in creation order: those users sent through the
 * gateway helpers and those the bot sent through REST (interaction replies included, ephemeral ones too,
 * so that their buttons can be clicked; history leaves ephemeral ones out, as Discord does).
 */
export class MessageLog {
	readonly #byChannel = new Map<string, ApiObject[]>();

	public add(message: ApiObject): ApiObject {
		const channelId = String(message.channel_id);
		const list = this.#byChannel.get(channelId) ?? [];
		list.push(message);
		this.#byChannel.set(channelId, list);
		return message;
	}

	/** The messages of a channel, oldest first, ephemeral ones included. */
	public inChannel(channelId: string): ApiObject[] {
		return [...(this.#byChannel.get(channelId) ?? [])];
	}

	/** A message by id, in any channel. */
	public find(messageId: string): ApiObject | undefined {
		for (const list of this.#byChannel.values()) {
			const message = list.find((candidate) => candidate.id === messageId);
			if (message) return message;
		}
		return undefined;
	}

	/** Changes a message in place (so every holder sees the edit) and returns it. */
	public update(messageId: string, changes: ApiObject): ApiObject | undefined {
		const message = this.find(messageId);
		if (message) Object.assign(message, changes, { edited_timestamp: new Date().toISOString() });
		return message;
	}

	public remove(messageId: string): boolean {
		for (const list of this.#byChannel.values()) {
			const index = list.findIndex((candidate) => candidate.id === messageId);
			if (index === -1) continue;
			list.splice(index, 1);
			return true;
		}
		return false;
	}

	/** A channel's history as Discord pages it: newest first, ephemeral messages left out. */
	public history(channelId: string, query: HistoryQuery = {}): ApiObject[] {
		const limit = Math.min(Math.max(query.limit ?? 50, 1), 100);
		const id = (message: ApiObject) => BigInt(String(message.id));
		const visible = this.inChannel(channelId)
			.filter((message) => (Number(message.flags ?? 0) & MessageFlags.Ephemeral) === 0)
			// Tests may choose their own ids; Discord orders history by id, not by arrival.
			.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
		if (query.before)
			return visible
				.filter((message) => id(message) < BigInt(query.before!))
				.slice(-limit)
				.reverse();
		if (query.after)
			return visible
				.filter((message) => id(message) > BigInt(query.after!))
				.slice(0, limit)
				.reverse();
		if (query.around) {
			const pivot = BigInt(query.around);
			const older = visible.filter((message) => id(message) <= pivot).slice(-Math.ceil(limit / 2));
			const newer = visible.filter((message) => id(message) > pivot).slice(0, Math.floor(limit / 2));
			return [...older, ...newer].reverse();
		}
		return visible.slice(-limit).reverse();
	}
}
