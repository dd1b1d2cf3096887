import type { Archive, ArchiveHead } from '../archive/Archive';
import { BudgetPolicy, dayLineTokens, fitByDay, fitMessages, measured } from './budget';
import type { MemoryConfig } from '../config';
import { digestLineText, renderDigest, withoutAuthors } from '../summaries/digest';
import { byTime, chronological, isExpired } from '../ledger/entries';
import { live, type Listings, type ScopeListing } from '../ledger/ScopeDirectory';
import { datedLines, dayLabel, messageLine, oneLine, relativeTime } from '../format/lines';
import { DM_SERVER_ID, Keys } from '../store/keys';
import type { StoredTopics } from '../account/longTerm';
import { profileBlock } from './profileTier';
import type { PlaceHit, ScopeIndex } from '../archive/ScopeIndex';
import type { SettingsRepository } from '../privacy/SettingsRepository';
import { linesPastSummary, servableSummary } from '../summaries/BackgroundSummarizer';
import type { MemoryStore } from '../store/MemoryStore';
import { EVERY_CHANNEL } from '../store/storedValues';
import { tokenCount, truncateToTokens } from '../format/tokens';
import {
	type BackgroundSummary,
	type ContextBlock,
	type ContextRequest,
	type DigestLine,
	type MemoryContext,
	PrivacyLevel,
	type ShortTermEntry,
	type StoredMessage,
	type UserProfile
} from '../schemas/types';

/** What context building needs from the engine. */
export interface ContextDependencies {
	store: MemoryStore;
	archive: Archive;
	settings: SettingsRepository;
	config: () => MemoryConfig;
}

const DAY = 86_400_000;
/** The fewest tokens of an end-cut message shown next to whole ones in the recent tier. */
const MIN_CUT_TOKENS = 16;

/** Builds the token-budgeted context for one request, as DESIGN.md's Context section says. */
export async function buildContext(deps: ContextDependencies, request: ContextRequest, now: number): Promise<MemoryContext> {
	const config = deps.config();
	const budget = request.tokenBudget ?? config.contextTokenBudget;
	const liveKey =
		request.serverId === null
			? Keys.userScope(request.userId, request.channelId, request.personaId)
			: Keys.serverScope(request.serverId, request.channelId, request.personaId);
	const lineage = request.personaLineageId ?? request.personaId ?? null;

	// One round trip for everything the request needs to start with.
	const [requester, [rawEntry, userListings, archiveHead, storedProfile, storedTopics, serverListings]] = await Promise.all([
		deps.settings.user(request.userId),
		deps.store.getMany<unknown>([
			liveKey,
			Keys.userIndex(request.userId),
			Keys.archiveHead(liveKey),
			Keys.profile(request.userId),
			Keys.topics(request.userId),
			...(request.serverId === null ? [] : [Keys.serverIndex(request.serverId)])
		]) as Promise<[ShortTermEntry?, Listings?, ArchiveHead?, UserProfile?, StoredTopics?, Listings?]>
	]);
	const entry = rawEntry && !isExpired(rawEntry, config, now) ? rawEntry : undefined;

	const others = await otherChannels(deps, request, requester.crossServerOptIn, lineage, live(serverListings, now), live(userListings, now), now);
	const otherEntries = (await deps.store.getMany<ShortTermEntry>(others.map((listing) => listing.key))).map((other, index) => ({
		listing: others[index]!,
		entry: other
	}));

	const recentMessages = entry?.messages ?? [];
	const index = await deps.archive.open(liveKey, archiveHead ?? null);
	const retentionStart = now - config.archiveRetentionDays * DAY;
	// The relevant tier fits a few dozen messages: more hits than that would only be counted and left out.
	const hits = index && request.query.trim() ? index.rank(request.query, Math.max(50, Math.ceil(budget / 30)), retentionStart) : [];

	// Nothing of a FULL user appears anywhere, even if it was stored before they chose FULL.
	const authors = new Set<string>();
	const collect = (messages: readonly StoredMessage[]) => messages.forEach((message) => message.authorId && authors.add(message.authorId));
	collect(recentMessages);
	for (const line of entry?.digest ?? []) line.authorIds?.forEach((id) => authors.add(id));
	entry?.backgroundSummary?.authorIds.forEach((id) => authors.add(id));
	for (const { entry: other } of otherEntries) if (other) collect(other.messages);
	// The relevant tier shows hits and their neighbours, read from the index without making the messages.
	if (index) {
		for (const { at } of hits) {
			for (let near = Math.max(0, at - 1); near <= Math.min(index.size - 1, at + 1); near++) {
				const authorId = index.authorIdAt(near);
				if (authorId) authors.add(authorId);
			}
		}
	}
	const authorIds = [...authors];
	const levels = await deps.settings.manyUsers(authorIds);
	const invisible = new Set(authorIds.filter((_, at) => levels[at]!.privacyLevel === PrivacyLevel.FULL));
	const visibleAuthor = (authorId: string | undefined) => !authorId || !invisible.has(authorId);
	const visible = (message: StoredMessage) => visibleAuthor(message.authorId);

	const usable = budget;
	const blocks: Partial<Record<ContextBlock['tier'], ContextBlock>> = {};
	let left = usable;
	const separator = BudgetPolicy.blockSeparatorTokens;

	const nudge = entry ? nudgeBlock(entry, config, left) : null;
	if (nudge) {
		blocks.nudge = nudge;
		left -= nudge.tokens + separator;
	}
	const recent = recentBlock(recentMessages.filter(visible), Math.min(left, Math.floor(usable * BudgetPolicy.recentShare)));
	if (recent) {
		blocks.recent = recent;
		left -= recent.tokens + separator;
	}
	const digest = withoutAuthors(entry?.digest ?? [], invisible);
	// A background summary drawn from a FULL member's words is not shown; the digest without them is.
	const servable = entry ? servableSummary(entry) : null;
	const background = servable && !servable.authorIds.some((id) => invisible.has(id)) ? servable : null;
	const summary = summaryBlock(
		entry,
		digest,
		background,
		otherEntries,
		request,
		visible,
		config,
		Math.min(left, Math.floor(usable * BudgetPolicy.summaryShare)),
		now
	);
	if (summary) {
		blocks.summary = summary;
		left -= summary.tokens + separator;
	}
	// Long-term memory is for MINIMAL users only, even if something was stored before they changed level.
	const profile =
		requester.privacyLevel === PrivacyLevel.MINIMAL
			? profileBlock(storedProfile, storedTopics, request.query, Math.min(left, Math.floor(usable * BudgetPolicy.profileShare)))
			: null;
	if (profile) {
		blocks.profile = profile;
		left -= profile.tokens + separator;
	}
	const shown = new Set([...(recent?.sourceIds ?? []), ...quotedInDigest(digest, summary)]);
	const relevant = index
		? relevantBlock(
				index,
				hits,
				(at) => visibleAuthor(index.authorIdAt(at)) && index.timeAt(at) >= retentionStart && !shown.has(index.idAt(at)),
				left
			)
		: null;
	if (relevant) blocks.relevant = relevant;

	const ordered = (['profile', 'nudge', 'summary', 'relevant', 'recent'] as const).flatMap((tier) => (blocks[tier] ? [blocks[tier]!] : []));
	const tokens = ordered.reduce((sum, block) => sum + block.tokens, 0) + Math.max(0, ordered.length - 1) * separator;
	return { text: ordered.map((block) => block.text).join('\n\n'), tokens, blocks: ordered };
}

/** The text of the nudge block; the tool's name is the one the plugin offers. */
export function nudgeText(turns: number): string {
	return `Memory: ${turns} turns since this conversation's summary was refreshed. Call update_short_term_memory with a short summary of what matters so far.`;
}

/** Asks the persona to refresh the summary every turn once `MEMORY_REFRESH_CADENCE` turns have passed without it. */
function nudgeBlock(entry: ShortTermEntry, config: MemoryConfig, budget: number): ContextBlock | null {
	if (entry.turnsSinceRefresh < config.refreshCadence) return null;
	const text = nudgeText(entry.turnsSinceRefresh);
	const tokens = tokenCount(text);
	return tokens <= budget ? { tier: 'nudge', text, tokens, sourceIds: [] } : null;
}

function recentBlock(messages: StoredMessage[], budget: number): ContextBlock | null {
	if (messages.length === 0) return null;
	const header = 'Recent messages in this conversation (UTC):';
	const fixed = tokenCount(header);
	const newestFirst = [...messages].sort(byTime).reverse();
	let chosen = fitMessages(newestFirst, budget, fixed);
	// A message too long for the tier even alone (a member's 4,000 characters) is shown end-cut in the room
	// left rather than left out: the newest such one, where the window reaches it (every newer message is
	// shown, or it sits between shown ones).
	const fitsAlone = (message: StoredMessage) => fixed + dayLineTokens(dayLabel(message.ts)) + tokenCount(messageLine(message)) + 2 <= budget;
	const passed = newestFirst.find((message) => !chosen.includes(message) && !fitsAlone(message));
	const reached =
		passed !== undefined &&
		(newestFirst.slice(0, newestFirst.indexOf(passed)).every((newer) => chosen.includes(newer)) ||
			chosen.some((shown) => byTime(shown, passed) < 0));
	if (passed && reached) {
		const used = chosen.length === 0 ? fixed : measured([header, ...datedLines(chosen)]).tokens + 1;
		const day = dayLabel(passed.ts);
		const dayLine = chosen.some((message) => dayLabel(message.ts) === day) ? 0 : dayLineTokens(day) + 1;
		// The date line, the time and the speaker take their tokens too.
		const room = budget - used - dayLine - tokenCount(messageLine({ ...passed, text: '' })) - 2;
		// Beside whole messages, a cut of a few tokens would say nothing.
		const text = chosen.length === 0 || room >= MIN_CUT_TOKENS ? truncateToTokens(oneLine(passed.text), room) : '';
		if (text) chosen = fitMessages([...chosen].reverse().concat({ ...passed, text }), budget, fixed);
	}
	if (chosen.length === 0) return null;
	const { text, tokens } = measured([header, ...datedLines(chosen)]);
	return { tier: 'recent', text, tokens, sourceIds: chosen.map((message) => message.id) };
}

interface OtherEntry {
	listing: ScopeListing;
	entry: ShortTermEntry | undefined;
}

/** Other channels' memories the request may see, newest first, at most `maxOtherChannels`. */
async function otherChannels(
	deps: ContextDependencies,
	request: ContextRequest,
	crossServerOptIn: boolean,
	lineage: string | null,
	serverListings: ScopeListing[],
	userListings: ScopeListing[],
	now: number
): Promise<ScopeListing[]> {
	const config = deps.config();
	if (config.maxOtherChannels === 0) return [];
	const here = request.serverId ?? DM_SERVER_ID;
	const sameLineage = (listing: ScopeListing) => (listing.lineageId ?? listing.personaId ?? null) === lineage;
	const elsewhere = (listing: ScopeListing) => listing.channelId !== request.channelId;
	const candidates: ScopeListing[] = [];
	if (request.serverId !== null)
		candidates.push(...serverListings.filter((listing) => listing.serverId === here && listing.key.startsWith('shortterm:server:')));
	for (const listing of userListings.filter((candidate) => candidate.key.startsWith('shortterm:user:'))) {
		// The user's own DM entries follow them between DM channels; other servers need their opt-in.
		if (listing.serverId === here) {
			if (request.serverId === null) candidates.push(listing);
		} else if (crossServerOptIn) {
			candidates.push(listing);
		}
	}
	const visibleChannels = request.visibleChannelIds ? new Set(request.visibleChannelIds) : null;
	const serverIds = [...new Set(candidates.map((listing) => listing.serverId).filter((id) => id !== DM_SERVER_ID))];
	const privateByServer = new Map(
		await Promise.all(serverIds.map(async (id) => [id, new Set((await deps.settings.server(id)).privateChannelIds)] as const))
	);
	const outsidePrivate = (listing: ScopeListing) => {
		const privateChannels = privateByServer.get(listing.serverId);
		if (!privateChannels) return true;
		// Server settings that could not be read make every channel private (see storedValues.ts).
		const everyChannel = privateChannels.has(EVERY_CHANNEL);
		const home = [listing.channelId, listing.parentChannelId].filter(
			(id): id is string => Boolean(id) && (everyChannel || privateChannels.has(id!))
		);
		if (home.length === 0) return true;
		// A private channel's memory stays in that channel and its threads.
		return listing.serverId === here && home.some((id) => id === request.channelId || id === request.parentChannelId);
	};
	const canView = (listing: ScopeListing) => !visibleChannels || listing.serverId !== here || visibleChannels.has(listing.channelId);
	const seen = new Set<string>();
	return candidates
		.filter((listing) => elsewhere(listing) && sameLineage(listing) && listing.expiresAt > now && outsidePrivate(listing) && canView(listing))
		.filter((listing) => !seen.has(listing.key) && Boolean(seen.add(listing.key)))
		.sort((a, b) => b.lastUpdated - a.lastUpdated)
		.slice(0, config.maxOtherChannels);
}

function summaryBlock(
	entry: ShortTermEntry | undefined,
	digest: readonly DigestLine[],
	background: BackgroundSummary | null,
	others: OtherEntry[],
	request: ContextRequest,
	visible: (message: StoredMessage) => boolean,
	config: MemoryConfig,
	budget: number,
	now: number
): ContextBlock | null {
	const lines: string[] = [];
	const sourceIds: string[] = [];
	let used = 0;
	const add = (line: string) => {
		const cost = tokenCount(line) + (lines.length > 0 ? 1 : 0);
		if (used + cost > budget) return false;
		lines.push(line);
		used += cost;
		return true;
	};
	const own = summaryLines(entry);
	if (own.length > 0) {
		add('Summary of this conversation:');
		for (const line of own) if (!add(line)) break;
		if (entry) sourceIds.push(...entry.messages.map((message) => message.id));
	} else if (background) {
		// The background summary replaces the digest lines it covers; those written since follow it.
		add('Summary of this conversation:');
		for (const line of background.text.split('\n')) if (!add(line)) break;
		sourceIds.push(...background.sourceIds);
		const header = 'Since then (digest, UTC):';
		const later = fitDigest(linesPastSummary({ digest: [...digest], backgroundSummary: background }), budget - used - tokenCount(header) - 1);
		if (later.length > 0 && add(header)) {
			for (const line of renderDigest(later)) add(line);
			sourceIds.push(...later.flatMap((line) => line.sourceIds));
		}
	} else if (digest.length > 0) {
		// Without the tool's summary, the digest of what left the window: its newest lines that fit.
		const header = 'Earlier in this conversation (digest, UTC):';
		const chosen = fitDigest(digest, Math.floor(budget * BudgetPolicy.digestShare) - tokenCount(header));
		if (chosen.length > 0 && add(header)) {
			for (const line of renderDigest(chosen)) add(line);
			sourceIds.push(...chosen.flatMap((line) => line.sourceIds));
		}
	}
	const here = request.serverId ?? DM_SERVER_ID;
	let headed = false;
	for (const { listing, entry: other } of others) {
		if (!other || isExpired(other, config, now)) continue;
		// Memories from another server or a DM show only what this user and the personas said.
		const fromElsewhere = other.serverId !== here;
		const messages = other.messages.filter(
			(message) => visible(message) && (!fromElsewhere || message.role === 'persona' || message.authorId === request.userId)
		);
		const where = fromElsewhere ? (other.serverId === DM_SERVER_ID ? ' (DM)' : ' (another server)') : '';
		const label = `<#${listing.channelId}>${where}, ${relativeTime(other.lastUpdated, now)}:`;
		const body = summaryLines(other);
		const remaining = budget - used - (lines.length > 0 ? 1 : 0) - (headed ? 0 : tokenCount('Other channels:') + 1) - tokenCount(label) - 1;
		const crude = fitMessages(
			[...messages].sort(byTime).reverse().slice(0, config.crudeMessageCount),
			remaining - body.reduce((sum, line) => sum + tokenCount(line) + 1, 0),
			0
		);
		if (body.length === 0 && crude.length === 0) continue;
		if (!headed && !add('Other channels:')) break;
		headed = true;
		if (!add(label)) break;
		for (const line of body) if (!add(line)) break;
		for (const line of datedLines(crude)) if (!add(line)) break;
		sourceIds.push(...crude.map((message) => message.id));
	}
	if (lines.length === 0 || (lines.length === 1 && headed)) return null;
	const { text, tokens } = measured(lines);
	return { tier: 'summary', text, tokens, sourceIds };
}

/**
 * The newest digest lines whose lines (and the date lines that open each day) fit in `budget`
 * tokens, oldest first: the digest drops its oldest lines first, and so does its block.
 */
function fitDigest(lines: readonly DigestLine[], budget: number): DigestLine[] {
	const chosen: DigestLine[] = [];
	const days = new Set<string>();
	let used = 0;
	for (const line of [...lines].sort((a, b) => a.ts - b.ts).reverse()) {
		const day = dayLabel(line.ts);
		const cost = tokenCount(digestLineText(line)) + 1 + (days.has(day) ? 0 : dayLineTokens(day) + 1);
		if (used + cost > budget) break;
		used += cost;
		days.add(day);
		chosen.unshift(line);
	}
	return chosen;
}

/** Messages the summary block already quotes whole through its digest lines: the relevant tier does not repeat them. */
function quotedInDigest(digest: readonly DigestLine[], summary: ContextBlock | null): string[] {
	const shown = new Set(summary?.sourceIds);
	return digest
		.filter((line) => line.kind === 'event' && !line.text.endsWith('…') && line.sourceIds.every((id) => shown.has(id)))
		.flatMap((line) => line.sourceIds);
}

function summaryLines(entry: ShortTermEntry | undefined): string[] {
	if (!entry) return [];
	const lines: string[] = [];
	if (entry.summary?.trim()) lines.push(entry.summary.trim());
	for (const [name, text] of Object.entries(entry.categories ?? {})) if (text.trim()) lines.push(`${name}: ${text.trim()}`);
	return lines;
}

/**
 * The relevant tier: hits best first, a strong hit followed by the message after it and the one before,
 * as many as fit (none taking more than its share), shown oldest first. Hits are places in the index
 * (see {@link ScopeIndex.rank}), read field by field: only the messages shown are made.
 */
function relevantBlock(index: ScopeIndex, hits: readonly PlaceHit[], usable: (at: number) => boolean, budget: number): ContextBlock | null {
	const usableHits = hits.filter((hit) => usable(hit.at));
	if (usableHits.length === 0 || budget <= 0) return null;
	const header = 'Earlier messages that may be relevant (UTC):';
	const best = usableHits[0]!.score;
	const candidates: number[] = [];
	const offered = new Set<number>();
	const offer = (at: number) => {
		if (at < 0 || at >= index.size || offered.has(at) || !usable(at)) return;
		offered.add(at);
		candidates.push(at);
	};
	for (const { at, score } of usableHits) {
		offer(at);
		if (score < best * BudgetPolicy.neighbourScoreRatio) continue;
		offer(at + 1);
		offer(at - 1);
	}
	const time = (at: number) => index.timeAt(at);
	// The index counted each message's line when it took it.
	const tokens = (at: number) => index.lineTokensAt(at);
	// The tokens fitting counted are those of the block: a day's messages share its date line in time order too.
	const { chosen, tokens: total } = fitByDay(
		candidates,
		budget,
		tokenCount(header),
		Math.floor(budget * BudgetPolicy.maxMessageShare),
		tokens,
		time
	);
	if (chosen.length === 0) return null;
	chosen.sort((a, b) => chronological(time(a), index.idAt(a), time(b), index.idAt(b)));
	const messages = chosen.map((at) => index.messageAt(at));
	return { tier: 'relevant', text: [header, ...datedLines(messages)].join('\n'), tokens: total, sourceIds: messages.map((message) => message.id) };
}
