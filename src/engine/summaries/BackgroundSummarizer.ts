import { LRUCache } from 'lru-cache';
import type { Archive } from '../archive/Archive';
import { CHAT_FAILURE_KINDS, type ChatAnswer, ChatFailure, type ChatFailureKind, chatCompletion } from './chatCompletions';
import { checkSummary, SUMMARY_REJECTIONS, type SummaryRejection, summaryPrompt, type SummarySource } from './citations';
import type { MemoryConfig } from '../config';
import { byTime, entryLifetimeMs, isExpired } from '../ledger/entries';
import { isOutage } from '../errors';
import { parseScopeKey } from '../store/keys';
import type { MemoryLogger } from '../MemoryEngine';
import type { SettingsRepository } from '../privacy/SettingsRepository';
import type { MemoryStore } from '../store/MemoryStore';
import { tokenCount } from '../format/tokens';
import { type BackgroundSummary, type DigestLine, PrivacyLevel, type ShortTermEntry, type StoredMessage } from '../schemas/types';

/** What the background summarizer did, for `memory.stats()`. */
export interface SummarizerCounters {
	/** True when `MEMORY_LLM_BASE_URL` is set. */
	enabled: boolean;
	/** Requests sent to the endpoint. */
	calls: number;
	/** Summaries stored. */
	successes: number;
	/** Answers refused, by reason; the digest kept serving. */
	rejections: Record<SummaryRejection, number>;
	/** Calls that failed, by kind. */
	errors: Record<ChatFailureKind | 'store', number>;
	/** Summaries not attempted because a daily cap was reached. */
	capped: { channel: number; process: number };
	/** Scopes not queued because the queue was full. */
	dropped: number;
	/** Answers thrown away because a cited message changed, or a member was erased, during the call. */
	superseded: number;
	/** Summaries marked stale by an edit or deletion of a cited message. */
	markedStale: number;
	inputTokens: number;
	outputTokens: number;
	costUsd: number;
}

/** Fresh counters, all zero. */
export function summarizerCounters(enabled: boolean): SummarizerCounters {
	return {
		enabled,
		calls: 0,
		successes: 0,
		rejections: Object.fromEntries(SUMMARY_REJECTIONS.map((reason) => [reason, 0])) as Record<SummaryRejection, number>,
		errors: Object.fromEntries([...CHAT_FAILURE_KINDS, 'store'].map((kind) => [kind, 0])) as Record<ChatFailureKind | 'store', number>,
		capped: { channel: 0, process: 0 },
		dropped: 0,
		superseded: 0,
		markedStale: 0,
		inputTokens: 0,
		outputTokens: 0,
		costUsd: 0
	};
}

/** What the summarizer needs from the engine. */
export interface SummarizerDependencies {
	store: MemoryStore;
	archive: Archive;
	settings: SettingsRepository;
	config: () => MemoryConfig;
	now: () => number;
	logger: MemoryLogger;
	counters: SummarizerCounters;
}

const DAY = 86_400_000;
/** Scopes waiting at most; beyond it a scope waits for its next turn to be offered again. */
export const MAX_QUEUED_SCOPES = 1000;
/** The sources sent in one call, in tokens; older ones are left to the digest. */
export const MAX_SOURCE_TOKENS = 8000;
/** How long `close()` lets a call in flight finish before aborting it. */
export const CLOSE_GRACE_MS = 2000;
/** After a failed or rejected attempt a scope waits this long, or for more digest lines, before the next. */
const RETRY_AFTER_FAILURE_MS = 3_600_000;

/** The digest lines of an entry (none on entries written before digests existed). */
export function digestLines(entry: Pick<ShortTermEntry, 'digest'>): readonly DigestLine[] {
	return entry.digest ?? [];
}

/**
 * Digest lines the background summary does not cover: all of them when there is none or it is stale;
 * else the lines written after it, and the lines it covered that have gained messages since (a count
 * line grows). Lines it left out on purpose (a FULL member's, the oldest beyond the input's size) stay out.
 */
export function linesPastSummary(entry: Pick<ShortTermEntry, 'digest' | 'backgroundSummary'>): readonly DigestLine[] {
	const summary = entry.backgroundSummary;
	const lines = digestLines(entry);
	if (!summary || summary.stale) return lines;
	const cited = new Set(summary.sourceIds);
	return lines.filter(
		(line) => line.sourceIds.some((id) => !cited.has(id)) && (line.ts > summary.coveredThrough || line.sourceIds.some((id) => cited.has(id)))
	);
}

/** The background summary when it may be served: no cited message changed since it was written. */
export function servableSummary(entry: ShortTermEntry): BackgroundSummary | null {
	const summary = entry.backgroundSummary;
	return summary && !summary.stale ? summary : null;
}

function wantsSummary(entry: ShortTermEntry, config: MemoryConfig): boolean {
	// The persona's own summary wins over a background one: a call would be wasted.
	if (entry.summary || Object.keys(entry.categories ?? {}).length > 0) return false;
	if (entry.backgroundSummary?.stale && digestLines(entry).length > 0) return true;
	return linesPastSummary(entry).length >= config.llmMinNewDigestLines;
}

/** The call in flight, so that a change of its sources during the call throws its answer away. */
interface Attempt {
	givenIds: ReadonlySet<string>;
	invalidated: boolean;
	/** The erasure epoch when its sources were read. */
	epoch: number;
}

/**
 * Replaces digests with LLM-written summaries, off the reply path: capture offers the scopes it
 * wrote, a single worker drains them one call at a time within the daily caps, and only an answer
 * whose every line cites its sources, and which covers all of them, is stored.
 */
export class BackgroundSummarizer {
	/** Scope keys waiting, oldest first; a key is queued once. */
	private readonly queue = new Set<string>();
	private readonly attempts = new LRUCache<string, { pending: number; at: number }>({ max: 10_000 });
	private readonly channelCalls = new Map<string, number>();
	private day = -1;
	private callsToday = 0;
	/** The process cap was logged today. */
	private cappedToday = false;
	private backoffUntil = 0;
	private immediate: NodeJS.Immediate | null = null;
	private timer: NodeJS.Timeout | null = null;
	private draining: Promise<void> | null = null;
	private current: Attempt | null = null;
	/** Erasures running, and a count bumped when each starts and ends. */
	private erasing = 0;
	private epoch = 0;
	private readonly closing = new AbortController();
	private closed = false;

	public constructor(private readonly deps: SummarizerDependencies) {}

	/**
	 * Queues `key` when its digest has grown past its summary by `MEMORY_LLM_MIN_NEW_DIGEST_LINES`
	 * (or its summary went stale). Synchronous, and never reads the store: capture calls it.
	 */
	public offer(key: string, entry: ShortTermEntry): void {
		if (this.closed) return;
		if (this.queue.has(key)) {
			// Already waiting, maybe for a 429's backoff that the clock has since passed.
			this.schedule();
			return;
		}
		const config = this.deps.config();
		if (!wantsSummary(entry, config)) return;
		const pending = linesPastSummary(entry).length;
		const failed = this.attempts.get(key);
		if (
			failed &&
			!entry.backgroundSummary?.stale &&
			pending < failed.pending + config.llmMinNewDigestLines &&
			this.deps.now() - failed.at < RETRY_AFTER_FAILURE_MS
		)
			return;
		if (this.queue.size >= MAX_QUEUED_SCOPES) {
			this.deps.counters.dropped++;
			return;
		}
		this.queue.add(key);
		this.schedule();
	}

	/**
	 * Runs an erasure (a member's clear, a moderator's wipe). An answer whose sources were read before
	 * it ended may hold the erased words: it is not stored, and the scope waits for its next turn.
	 */
	public async whileErasing<T>(erase: () => Promise<T>): Promise<T> {
		this.erasing++;
		this.epoch++;
		try {
			return await erase();
		} finally {
			this.erasing--;
			this.epoch++;
		}
	}

	/** Messages were edited or deleted: a call in flight citing one of them does not store its answer. */
	public invalidateCiting(messageIds: readonly string[]): void {
		if (this.current && messageIds.some((id) => this.current!.givenIds.has(id))) this.current.invalidated = true;
	}

	/** Queues again, at once, the scopes whose summaries went stale. */
	public rebuild(stale: readonly { key: string; entry: ShortTermEntry }[]): void {
		for (const { key, entry } of stale) {
			this.attempts.delete(key);
			this.offer(key, entry);
		}
	}

	/** Resolves once nothing is running or about to run (a wait for a 429's backoff counts as idle). */
	public async whenIdle(): Promise<void> {
		while (this.immediate || this.draining) await (this.draining ?? new Promise((resolve) => setImmediate(resolve)));
	}

	/** Stops the worker; a call in flight gets {@link CLOSE_GRACE_MS} to finish, then is aborted. */
	public async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.queue.clear();
		if (this.immediate) clearImmediate(this.immediate);
		if (this.timer) clearTimeout(this.timer);
		this.immediate = null;
		this.timer = null;
		if (!this.draining) return;
		const grace = setTimeout(() => this.closing.abort(), CLOSE_GRACE_MS);
		await this.draining;
		clearTimeout(grace);
	}

	private schedule(): void {
		if (this.closed || this.draining || this.immediate) return;
		if (this.timer) clearTimeout(this.timer);
		this.timer = null;
		this.immediate = setImmediate(() => {
			this.immediate = null;
			this.draining = this.drain().finally(() => {
				this.draining = null;
				// An offer that came while the last job was finishing must not wait for the next turn.
				if (this.queue.size > 0 && !this.timer) this.schedule();
			});
		});
		this.immediate.unref();
	}

	private async drain(): Promise<void> {
		while (!this.closed && this.queue.size > 0) {
			const wait = this.backoffUntil - this.deps.now();
			if (wait > 0) {
				// A 429's Retry-After: wait, and let a new offer look again (the clock may be a test's).
				this.timer = setTimeout(
					() => {
						this.timer = null;
						this.schedule();
					},
					Math.min(wait, 60_000)
				);
				this.timer.unref();
				return;
			}
			this.rollDay();
			if (this.callsToday >= this.deps.config().llmMaxCallsPerDay) {
				if (!this.cappedToday)
					this.deps.logger.warn(
						`[memory] background summarizer: MEMORY_LLM_MAX_CALLS_PER_DAY (${this.deps.config().llmMaxCallsPerDay}) reached; no more calls until 00:00 UTC.`
					);
				this.cappedToday = true;
				this.deps.counters.capped.process += this.queue.size;
				this.queue.clear();
				return;
			}
			const key = this.queue.values().next().value!;
			this.queue.delete(key);
			try {
				await this.summarize(key);
			} catch (error) {
				this.deps.counters.errors.store++;
				if (!isOutage(error)) this.deps.logger.error(`[memory] background summary of ${key} failed:`, error);
			}
		}
	}

	private rollDay(): void {
		const day = Math.floor(this.deps.now() / DAY);
		if (day === this.day) return;
		this.day = day;
		this.callsToday = 0;
		this.cappedToday = false;
		this.channelCalls.clear();
	}

	/** One scope: read it, check it still wants a summary and the caps allow a call, then call. */
	private async summarize(key: string): Promise<void> {
		const { store, config: getConfig, now, counters } = this.deps;
		const config = getConfig();
		const epoch = this.epoch;
		const entry = await store.get<ShortTermEntry>(key);
		if (!entry || isExpired(entry, config, now()) || !wantsSummary(entry, config)) return;
		const channelId = parseScopeKey(key)?.channelId ?? entry.channelId;
		if ((this.channelCalls.get(channelId) ?? 0) >= config.llmMaxCallsPerChannelPerDay) {
			counters.capped.channel++;
			return;
		}
		const input = await this.sources(key, entry);
		const pending = linesPastSummary(entry).length;
		if (input.sources.length === 0) {
			this.attempts.set(key, { pending, at: now() });
			return;
		}
		const givenIds = input.sources.flatMap((source) => source.ids);

		this.callsToday++;
		this.channelCalls.set(channelId, (this.channelCalls.get(channelId) ?? 0) + 1);
		counters.calls++;
		const attempt: Attempt = { givenIds: new Set(givenIds), invalidated: false, epoch };
		this.current = attempt;
		try {
			await this.callAndStore(key, attempt, input, pending);
		} finally {
			// Held until the answer is stored, so that a change landing meanwhile still throws it away.
			this.current = null;
		}
	}

	/** The call, the checks of its answer, and the write of an answer that passed them. */
	private async callAndStore(
		key: string,
		attempt: Attempt,
		input: { sources: SummarySource[]; authorIds: string[]; coveredThrough: number },
		pending: number
	): Promise<void> {
		const { store, config: getConfig, now, counters, logger } = this.deps;
		const config = getConfig();
		const givenIds = [...attempt.givenIds];
		const messages = summaryPrompt(input.sources, config.maxSummaryLength);
		let answer: ChatAnswer;
		try {
			answer = await chatCompletion({
				baseUrl: config.llmBaseUrl!,
				apiKey: config.llmApiKey,
				model: config.llmModel,
				messages,
				maxTokens: Math.ceil(config.maxSummaryLength / 2) + 256,
				timeoutMs: config.llmTimeoutMs,
				signal: this.closing.signal
			});
		} catch (error) {
			const failure = error instanceof ChatFailure ? error : new ChatFailure('network', String(error));
			counters.errors[failure.kind]++;
			logger.warn(`[memory] background summary of ${key}: the call failed (${failure.kind}): ${failure.message}`);
			if (failure.kind === 'rate-limited') {
				// Not retried now: the queue waits out Retry-After, and this scope goes to its back.
				this.backoffUntil = now() + (failure.retryAfterMs ?? 60_000);
				if (!this.closed) this.queue.add(key);
			} else {
				this.attempts.set(key, { pending, at: now() });
			}
			return;
		}

		// The endpoint may not report usage; the BPE count of what was sent and received stands in.
		const inputTokens = answer.inputTokens ?? messages.reduce((sum, message) => sum + tokenCount(message.content), 0);
		const outputTokens = answer.outputTokens ?? tokenCount(answer.content);
		const costUsd = (inputTokens * config.llmPriceInputPerMTok + outputTokens * config.llmPriceOutputPerMTok) / 1_000_000;
		counters.inputTokens += inputTokens;
		counters.outputTokens += outputTokens;
		counters.costUsd += costUsd;

		const checked = checkSummary(answer.content, givenIds, config.maxSummaryLength);
		if (!checked.ok) {
			counters.rejections[checked.reason]++;
			this.attempts.set(key, { pending, at: now() });
			logger.warn(`[memory] background summary of ${key} rejected (${checked.reason}): ${checked.detail}; the digest keeps serving.`);
			return;
		}
		const summary: BackgroundSummary = {
			text: checked.summary.text,
			sourceIds: checked.summary.sourceIds,
			authorIds: input.authorIds,
			coveredThrough: input.coveredThrough,
			model: answer.model ?? config.llmModel,
			inputTokens,
			outputTokens,
			costUsd,
			createdAt: now(),
			stale: false
		};
		const stored = await store.lock.run(key, async () => {
			// A member erased while the call ran: the answer may hold their words.
			if (attempt.epoch !== this.epoch || this.erasing > 0) return 'erased' as const;
			// A cited message edited or deleted while the call ran.
			if (attempt.invalidated) return 'superseded' as const;
			const latest = await store.get<ShortTermEntry>(key);
			const at = now();
			if (!latest || isExpired(latest, config, at)) return 'gone' as const;
			const ttlMs = latest.lastUpdated + entryLifetimeMs(latest, config) - at;
			await store.set(key, { ...latest, backgroundSummary: summary } satisfies ShortTermEntry, ttlMs);
			return 'stored' as const;
		});
		if (stored === 'superseded' || stored === 'erased') {
			counters.superseded++;
			if (stored === 'superseded' && !this.closed) this.queue.add(key);
			return;
		}
		if (stored === 'stored') {
			counters.successes++;
			this.attempts.delete(key);
		}
	}

	/**
	 * The messages the digest's event lines cite, read from the scope's archive (whole, where the digest
	 * cut them), newest kept first within {@link MAX_SOURCE_TOKENS}; a count line of small talk, and an
	 * event line whose messages are no longer archived, stand for their messages. Nothing of a FULL
	 * member is ever sent.
	 */
	private async sources(key: string, entry: ShortTermEntry): Promise<{ sources: SummarySource[]; authorIds: string[]; coveredThrough: number }> {
		const lines = [...digestLines(entry)].sort((a, b) => a.ts - b.ts);
		const index = lines.some((line) => line.kind === 'event') ? await this.deps.archive.open(key) : null;
		const candidates: { source: SummarySource; authorIds: string[] }[] = [];
		const seen = new Set<string>();
		for (const line of lines) {
			const standIn: string[] = [];
			for (const id of line.sourceIds) {
				if (seen.has(id)) continue;
				seen.add(id);
				const message = line.kind === 'event' ? index?.get(id) : undefined;
				if (message) candidates.push({ source: { ids: [id], message }, authorIds: message.authorId ? [message.authorId] : [] });
				else standIn.push(id);
			}
			if (standIn.length > 0) {
				const note: StoredMessage = { id: standIn[0]!, role: 'user', authorName: 'digest note', text: line.text, ts: line.ts };
				candidates.push({ source: { ids: standIn, message: note }, authorIds: line.authorIds ?? [] });
			}
		}
		const authors = [...new Set(candidates.flatMap((candidate) => candidate.authorIds))];
		const levels = await this.deps.settings.manyUsers(authors);
		const invisible = new Set(authors.filter((_, at) => levels[at]!.privacyLevel === PrivacyLevel.FULL));
		const visible = candidates
			.filter((candidate) => !candidate.authorIds.some((id) => invisible.has(id)))
			.sort((a, b) => byTime(a.source.message, b.source.message));

		const chosen: typeof visible = [];
		let budget = MAX_SOURCE_TOKENS;
		for (const candidate of visible.reverse()) {
			budget -= tokenCount(candidate.source.message.text) + 12 * candidate.source.ids.length;
			if (budget < 0) break;
			chosen.unshift(candidate);
		}
		return {
			sources: chosen.map((candidate) => candidate.source),
			authorIds: [...new Set(chosen.flatMap((candidate) => candidate.authorIds))],
			coveredThrough: Math.max(0, ...lines.map((line) => line.ts))
		};
	}
}
