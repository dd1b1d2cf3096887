import { LRUCache } from 'lru-cache';
import type { MemoryConfig } from '../config';
import { MemoryError } from '../errors';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { SettingsRepository } from '../records/SettingsRepository';
import { parseInput, PrivacyLevel, type ShortTermEntry, type SummaryTarget, SummaryTargetSchema } from '../schemas';
import { readInput } from '../schemas/readInput';
import { conversationKeys } from '../records/scopes';
import { entryPlace } from '../ledger/entries';
import { summaryArguments } from './summaryTool';

/** What `update_short_term_memory` stored: the cleaned summary (or category texts) and the keys written. */
export interface WrittenSummary {
	/** The summary as stored, cleaned (the category texts joined, in category mode). */
	summary: string;
	/** The text of each of the server's summary categories; null outside category mode. */
	categories: Record<string, string> | null;
	/** The short-term keys written. */
	keys: string[];
}

/** Writes summaries from the tool into the user scope and, outside DMs, the server scope. */
export class SummaryWriter {
	private readonly turnsDone = new LRUCache<string, true>({ max: 10_000, ttl: 3_600_000 });

	public constructor(
		private readonly ledger: MessageLedger,
		private readonly settings: SettingsRepository,
		private readonly config: MemoryConfig
	) {}

	/**
	 * Stores `summary` for the target conversation. Rejects with `INVALID_INPUT` (a message the LLM can
	 * read) for a non-string or empty summary, a second call in the same turn, or a user whose memory is off.
	 */
	public async write(target: SummaryTarget, input: unknown, now: number): Promise<WrittenSummary> {
		const parsed = parseInput(SummaryTargetSchema, target, 'summary target');
		const categoryNames = parsed.serverId === null ? [] : (await this.settings.server(parsed.serverId)).summaryCategories;
		const { text, categories } = readInput(
			'update_short_term_memory arguments',
			input,
			() => summaryArguments(input, categoryNames, this.config.maxSummaryLength),
			categoryNames.length > 0 ? categoryNames : ['summary']
		);
		const turnKey = parsed.turnId ? `${parsed.userId}:${parsed.channelId}:${parsed.turnId}` : null;
		if (turnKey && this.turnsDone.has(turnKey))
			throw new MemoryError(
				'INVALID_INPUT',
				'The summary was already updated in this turn; call update_short_term_memory at most once per reply.'
			);
		const user = await this.settings.user(parsed.userId);
		if (user.privacyLevel === PrivacyLevel.FULL) throw new MemoryError('INVALID_INPUT', 'Memory is disabled for this user; nothing was stored.');

		const keys = conversationKeys(parsed, parsed.personaId);
		await this.ledger.writeEntries(keys, now, (stored) =>
			stored.map((current, index): ShortTermEntry => {
				const server = index === 1;
				return {
					scope: server ? 'server' : 'user',
					userId: server ? null : parsed.userId,
					...entryPlace(current, parsed),
					personaId: parsed.personaId ?? null,
					lineageId: parsed.personaLineageId ?? current?.lineageId ?? null,
					messages: current?.messages ?? [],
					// Category mode replaces the map and keeps no free-form summary; summary mode keeps no map.
					summary: categories ? null : text,
					categories,
					// Kept: it serves again if the summary is ever dropped, and goes on folding what leaves the window.
					digest: current?.digest ?? null,
					lastUpdated: now,
					turnsSinceRefresh: 0
				};
			})
		);
		if (turnKey) this.turnsDone.set(turnKey, true);
		return { summary: text, categories, keys: keys.entryKeys };
	}
}
