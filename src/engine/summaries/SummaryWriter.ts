import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { MemoryConfig } from '../config';
import type { ScopeDirectory } from '../ledger/ScopeDirectory';
import { entryLifetimeMs, isExpired } from '../ledger/entries';
import { MemoryError } from '../errors';
import { DM_SERVER_ID, Keys } from '../store/keys';
import type { SettingsRepository } from '../privacy/SettingsRepository';
import type { MemoryStore } from '../store/MemoryStore';
import { type ConversationLocation, PrivacyLevel, type ShortTermEntry } from '../schemas/types';
import { ConversationLocationSchema } from '../schemas/validation';

/** The arguments the persona's LLM passes to `update_short_term_memory`. */
export const ShortTermMemoryToolSchema = z.object({
	summary: z
		.string()
		.describe(
			'A concise summary of the conversation so far: who said what that matters, decisions, dates, open questions. Replaces the previous summary.'
		)
});

/**
 * The tool's arguments for a server: one free-form `summary`, or in category mode one required
 * string per category.
 */
export function shortTermMemoryToolSchema(categories: readonly string[] = []) {
	if (categories.length === 0) return ShortTermMemoryToolSchema;
	return z.object(
		Object.fromEntries(
			categories.map((name) => [name, z.string().describe(`What matters about "${name}" in this conversation. Replaces the previous text.`)])
		)
	);
}

/** Where a summary goes, and which turn wrote it. */
export interface SummaryTarget extends ConversationLocation {
	/** The triggering message id: one successful call per turn. */
	turnId?: string;
}

const TargetSchema = ConversationLocationSchema.extend({ turnId: z.string().min(1).max(128).optional() });

// Template slots a prompt left unfilled, such as `{user}` or `{persona.name}`: never stored.
const PLACEHOLDER = /\{[A-Za-z_][\w.]*\}/g;

/** Trims, drops unfilled `{placeholder}` tokens and cuts to `maxLength` characters. */
export function cleanSummary(summary: string, maxLength: number): string {
	const cleaned = summary
		.replace(PLACEHOLDER, '')
		.replace(/[ \t]{2,}/g, ' ')
		.trim();
	return cleaned.length > maxLength ? `${cleaned.slice(0, maxLength - 1).trimEnd()}…` : cleaned;
}

/** Writes summaries from the tool into the user scope and, outside DMs, the server scope. */
export class SummaryWriter {
	private readonly turnsDone = new LRUCache<string, true>({ max: 10_000, ttl: 3_600_000 });

	public constructor(
		private readonly store: MemoryStore,
		private readonly settings: SettingsRepository,
		private readonly directory: ScopeDirectory,
		private readonly config: () => MemoryConfig
	) {}

	/**
	 * Stores `summary` for the target conversation. Rejects with `INVALID_INPUT` (a message the LLM can
	 * read) for a non-string or empty summary, a second call in the same turn, or a user whose memory is off.
	 */
	public async write(
		target: SummaryTarget,
		input: unknown,
		now: number
	): Promise<{ summary: string; categories: Record<string, string> | null; keys: string[] }> {
		const parsedTarget = TargetSchema.safeParse(target);
		if (!parsedTarget.success) throw new MemoryError('INVALID_INPUT', `Invalid summary target: ${z.prettifyError(parsedTarget.error)}`);
		const config = this.config();
		const categoryNames = target.serverId === null ? [] : (await this.settings.server(target.serverId)).summaryCategories;
		const { text, categories } =
			categoryNames.length > 0
				? categoryTexts(input, categoryNames, config.maxSummaryLength)
				: { text: freeText(input, config.maxSummaryLength), categories: null };
		const turnKey = target.turnId ? `${target.userId}:${target.channelId}:${target.turnId}` : null;
		if (turnKey && this.turnsDone.has(turnKey))
			throw new MemoryError(
				'INVALID_INPUT',
				'The summary was already updated in this turn; call update_short_term_memory at most once per reply.'
			);
		const user = await this.settings.user(target.userId);
		if (user.privacyLevel === PrivacyLevel.FULL) throw new MemoryError('INVALID_INPUT', 'Memory is disabled for this user; nothing was stored.');

		const userKey = Keys.userScope(target.userId, target.channelId, target.personaId);
		const serverKey = target.serverId === null ? null : Keys.serverScope(target.serverId, target.channelId, target.personaId);
		const keys = serverKey ? [userKey, serverKey] : [userKey];
		const written = await this.store.lock.runAll(keys, async () => {
			const stored = await this.store.getMany<ShortTermEntry>(keys);
			const writes = keys.map((key, index) => {
				const previous = stored[index];
				const current = previous && !isExpired(previous, config, now) ? previous : undefined;
				const entry: ShortTermEntry = {
					scope: key === serverKey ? 'server' : 'user',
					userId: key === serverKey ? null : target.userId,
					serverId: target.serverId ?? DM_SERVER_ID,
					channelId: target.channelId,
					parentChannelId: target.parentChannelId ?? current?.parentChannelId ?? null,
					personaId: target.personaId ?? null,
					lineageId: target.personaLineageId ?? current?.lineageId ?? null,
					messages: current?.messages ?? [],
					// Category mode replaces the map and keeps no free-form summary; summary mode keeps no map.
					summary: categories ? null : text,
					categories,
					// Kept: it serves again if the summary is ever dropped, and goes on folding what leaves the window.
					digest: current?.digest ?? null,
					lastUpdated: now,
					turnsSinceRefresh: 0
				};
				return { key, value: entry, ttlMs: entryLifetimeMs(entry, config) };
			});
			await this.store.setMany(writes);
			return writes;
		});
		// The directory learns the longer lifetime a summary gives the entry.
		await this.directory.track(
			written.map(({ key, value }) => ({ key, entry: value })),
			now
		);
		if (turnKey) this.turnsDone.set(turnKey, true);
		return { summary: text, categories, keys };
	}
}

function freeText(input: unknown, maxLength: number): string {
	const summary = typeof input === 'object' && input !== null && 'summary' in input ? (input as { summary: unknown }).summary : input;
	if (typeof summary !== 'string')
		throw new MemoryError(
			'INVALID_INPUT',
			`update_short_term_memory needs "summary" to be a string; got ${summary === null ? 'null' : typeof summary}.`
		);
	const text = cleanSummary(summary, maxLength);
	if (text.length === 0) throw new MemoryError('INVALID_INPUT', 'update_short_term_memory needs a non-empty "summary".');
	return text;
}

/** Category mode: every category is required, and together they stay within the summary length. */
function categoryTexts(input: unknown, names: readonly string[], maxLength: number): { text: string; categories: Record<string, string> } {
	if (typeof input !== 'object' || input === null)
		throw new MemoryError('INVALID_INPUT', `update_short_term_memory needs an object with a string for each category: ${names.join(', ')}.`);
	const record = input as Record<string, unknown>;
	const missing = names.filter((name) => typeof record[name] !== 'string');
	if (missing.length > 0)
		throw new MemoryError(
			'INVALID_INPUT',
			`update_short_term_memory needs a string for each category; missing or not a string: ${missing.join(', ')}.`
		);
	const share = Math.floor(maxLength / names.length);
	const categories = Object.fromEntries(names.map((name) => [name, cleanSummary(record[name] as string, share)]));
	if (Object.values(categories).every((text) => text.length === 0))
		throw new MemoryError('INVALID_INPUT', 'update_short_term_memory needs at least one non-empty category.');
	return { text: names.map((name) => `${name}: ${categories[name]}`).join('\n'), categories };
}
