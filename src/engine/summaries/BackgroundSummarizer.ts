import { LRUCache } from 'lru-cache';
import type { Archive } from '../archive/Archive';
import type { MemoryConfig } from '../config';
import { isOutage } from '../errors';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { MemoryLogger } from '../MemoryLogger';
import type { SettingsRepository } from '../records/SettingsRepository';
import type { ShortTermEntry } from '../schemas';
import { isExpired } from '../ledger/entries';
import { parseScopeKey } from '../records/scopes';
import { requestSummary } from './requestSummary';
import { linesPastSummary, wantsSummary } from './servable';
import type { SummarizerCounters } from './SummarizerCounters';
import { type SummaryInput, summarySources } from './summarySources';
import { Records } from '../records/Records';

/** What the summarizer works with. */
export interface SummarizerParts {
	config: MemoryConfig;
	ledger: MessageLedger;
	archive: Archive;
	settings: SettingsRepository;
	now: () => number;
	logger: MemoryLogger;
	counters: SummarizerCounters;
}

const DAY = 86_400_000;
/** Scopes waiting at most; beyond it a scope waits for its next turn to be offered again. */
export const MAX_QUEUED_SCOPES = 1000;
/** How long `close()` lets a call in flight finish before aborting it. */
export const CLOSE_GRACE_MS = 2000;
/** After a failed or rejected attempt a scope waits this long, or for more digest lines, before the next. */
const RETRY_AFTER_FAILURE_MS = 3_600_000;

interface Attempt {
	givenIds: ReadonlySet<string>;
	invalidated: boolean;
	/** The erasure epoch when its sources were read. */
	epoch: number;
	/** What became of its answer, once it was checked against the latest entry. */
	outcome?: 'stored' | 'erased' | 'superseded';
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

	public constructor(private readonly deps: SummarizerParts) {}

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
		const { config } = this.deps;
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
			if (this.callsToday >= this.deps.config.llmMaxCallsPerDay) {
				if (!this.cappedToday)
					this.deps.logger.warn(
						`[memory] background summarizer: MEMORY_LLM_MAX_CALLS_PER_DAY (${this.deps.config.llmMaxCallsPerDay}) reached; no ` +
							`more calls until 00:00 UTC.`
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
		const { ledger, config, now, counters } = this.deps;
		const { epoch } = this;
		const entry = await ledger.store.get(Records.entry(key));
		if (!entry || isExpired(entry, config, now()) || !wantsSummary(entry, config)) return;
		const channelId = parseScopeKey(key)?.channelId ?? entry.channelId;
		if ((this.channelCalls.get(channelId) ?? 0) >= config.llmMaxCallsPerChannelPerDay) {
			counters.capped.channel++;
			return;
		}
		const input = await summarySources(this.deps.archive, this.deps.settings, key, entry);
		const pending = linesPastSummary(entry).length;
		if (input.sources.length === 0) {
			this.attempts.set(key, { pending, at: now() });
			return;
		}
		this.callsToday++;
		this.channelCalls.set(channelId, (this.channelCalls.get(channelId) ?? 0) + 1);
		counters.calls++;
		const attempt: Attempt = { givenIds: new Set(input.sources.flatMap((source) => source.ids)), invalidated: false, epoch };
		this.current = attempt;
		try {
			await this.callAndStore(key, attempt, input, pending);
		} finally {
			// Held until the answer is stored, so that a change landing meanwhile still throws it away.
			this.current = null;
		}
	}

	/** The call, the checks of its answer, and the write of an answer that passed them. */
	private async callAndStore(key: string, attempt: Attempt, input: SummaryInput, pending: number): Promise<void> {
		const { ledger, config, now, counters, logger } = this.deps;
		const answer = await requestSummary(config, input, now, this.closing.signal, counters);
		if (answer.kind === 'failed') {
			const { failure } = answer;
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
		if (answer.kind === 'rejected') {
			counters.rejections[answer.reason]++;
			this.attempts.set(key, { pending, at: now() });
			logger.warn(`[memory] background summary of ${key} rejected (${answer.reason}): ${answer.detail}; the digest keeps serving.`);
			return;
		}
		await ledger.updateEntry(key, now, (latest) => {
			// A member erased while the call ran: the answer may hold their words.
			if (attempt.epoch !== this.epoch || this.erasing > 0) attempt.outcome = 'erased';
			// A cited message edited or deleted while the call ran.
			else if (attempt.invalidated) attempt.outcome = 'superseded';
			else attempt.outcome = 'stored';
			return attempt.outcome === 'stored' ? { ...latest, backgroundSummary: answer.summary } : null;
		});
		// No outcome: the entry expired or went meanwhile.
		const { outcome } = attempt;
		if (outcome === 'superseded' || outcome === 'erased') {
			counters.superseded++;
			if (outcome === 'superseded' && !this.closed) this.queue.add(key);
			return;
		}
		if (outcome === 'stored') {
			counters.successes++;
			this.attempts.delete(key);
		}
	}
}
