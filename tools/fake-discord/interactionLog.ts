import type { InteractionType } from 'discord.js';
import type { ApiObject } from './types';

/** An interaction the fake dispatched, and how far the bot got in answering it. */
export interface InteractionRecord {
	id: string;
	token: string;
	type: InteractionType;
	/** The INTERACTION_CREATE payload as dispatched. */
	payload: ApiObject;
	channelId: string;
	guildId: string | null;
	/** When the fake dispatched it, in milliseconds since the Unix epoch: Discord waits 3 seconds from here for the callback. */
	dispatchedAt: number;
	/** The callback type of the first (and only accepted) callback, once there was one. */
	callbackType?: number;
	/** The message `@original` names: the reply, or for a component update the component's message. */
	originalMessageId?: string;
	/** The message a clicked component sits on. */
	componentMessageId?: string;
}

/** The interactions the fake dispatched, by id and by token. */
export class InteractionLog {
	readonly #byId = new Map<string, InteractionRecord>();

	public add(record: InteractionRecord): InteractionRecord {
		this.#byId.set(record.id, record);
		return record;
	}

	public byId(id: string): InteractionRecord | undefined {
		return this.#byId.get(id);
	}

	public byToken(token: string): InteractionRecord | undefined {
		for (const record of this.#byId.values()) if (record.token === token) return record;
		return undefined;
	}
}
