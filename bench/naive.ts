import { tokenCount } from './engine';
import type { MemoryTurn } from '../src/engine';

/** A message as the naive reference keeps it. */
export interface NaiveMessage {
	authorName: string;
	text: string;
	ts: number;
	id: string;
}

export interface NaiveContext {
	text: string;
	tokens: number;
	/** Message ids in the context: the recent window, then the relevant ones, best first. */
	sourceIds: string[];
}

/** Where a naive context is asked for. */
export interface NaiveRequest {
	serverId: string | null;
	channelId: string;
	query: string;
	tokenBudget?: number;
}

const DEFAULT_BUDGET = 1_500;
const RECENT_WINDOW = 10;

/**
 * The reference the engine is compared with: what a bot would write first. Every message of a channel
 * in one in-memory array; a context is the newest 10 messages plus a full scan of the channel ranking
 * every older message by how many words it shares with the query (lower-cased word sets, built at
 * query time), best first, packed into the token budget until the next one does not fit.
 */
export class NaiveMemory {
	private readonly channels = new Map<string, NaiveMessage[]>();

	/** Appends the turn's history and replies to its channel. */
	public record(turn: MemoryTurn): void {
		const messages = this.channel(turn.serverId, turn.channelId, true)!;
		const at = turn.timestamp ?? Date.now();
		for (const message of turn.history) {
			messages.push({
				authorName: message.authorName ?? message.authorId ?? message.role,
				text: message.text,
				ts: message.timestamp ?? at,
				id: message.messageId ?? `n${messages.length}`
			});
		}
		for (const response of turn.responses) {
			messages.push({
				authorName: response.personaName ?? response.personaId ?? 'persona',
				text: response.text,
				ts: at,
				id: response.messageId ?? `n${messages.length}`
			});
		}
	}

	public context(request: NaiveRequest): NaiveContext {
		const messages = this.channel(request.serverId, request.channelId, false) ?? [];
		let left = request.tokenBudget ?? DEFAULT_BUDGET;
		const recent = messages.slice(-RECENT_WINDOW);
		const recentLines: string[] = [];
		const recentIds: string[] = [];
		// Newest first, so a small budget keeps the newest messages.
		for (let at = recent.length - 1; at >= 0; at--) {
			const cost = tokenCount(line(recent[at]!)) + 1;
			if (cost > left) break;
			left -= cost;
			recentLines.unshift(line(recent[at]!));
			recentIds.unshift(recent[at]!.id);
		}
		const relevant: NaiveMessage[] = [];
		for (const { message } of rankByOverlap(messages.slice(0, messages.length - recent.length), request.query)) {
			const cost = tokenCount(line(message)) + 1;
			if (cost > left) break;
			left -= cost;
			relevant.push(message);
		}
		const lines = [...relevant.map(line), ...recentLines];
		const text = lines.join('\n');
		return { text, tokens: tokenCount(text), sourceIds: [...recentIds, ...relevant.map((message) => message.id)] };
	}

	/** Messages held across every channel. */
	public get size(): number {
		let total = 0;
		for (const messages of this.channels.values()) total += messages.length;
		return total;
	}

	private channel(serverId: string | null, channelId: string, create: boolean): NaiveMessage[] | undefined {
		const key = `${serverId ?? 'DM'}:${channelId}`;
		let messages = this.channels.get(key);
		if (!messages && create) this.channels.set(key, (messages = []));
		return messages;
	}
}

function line(message: NaiveMessage): string {
	return `${message.authorName}: ${message.text}`;
}

function words(text: string): Set<string> {
	return new Set(text.toLowerCase().match(/[a-z0-9']+/g) ?? []);
}

/** Every message sharing at least one word with the query, most shared words first, then newest first. */
function rankByOverlap(messages: readonly NaiveMessage[], query: string): { message: NaiveMessage; overlap: number }[] {
	const wanted = [...words(query)];
	const ranked: { message: NaiveMessage; overlap: number }[] = [];
	for (const message of messages) {
		const own = words(message.text);
		let overlap = 0;
		for (const word of wanted) if (own.has(word)) overlap++;
		if (overlap > 0) ranked.push({ message, overlap });
	}
	return ranked.sort((a, b) => b.overlap - a.overlap || b.message.ts - a.message.ts);
}
