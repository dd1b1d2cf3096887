import { isEntryOf, isExpired } from '../ledger/entries';
import { live } from '../ledger/ScopeDirectory';
import { linesOfAuthors } from '../ledger/stripEntry';
import { Slices } from '../archive/IndexSlices';
import { visibilityOf } from '../privacy/visibility';
import { type ContextBlock, type ContextTier, type MemoryContext, type ParsedContextRequest, PrivacyLevel, type SourceGroup } from '../schemas';
import { readContextSnapshot } from '../records/contextSnapshot';
import { Records } from '../records/Records';
import { PersonaNames } from '../format/speakers';
import { refillTokenizerAllowance } from '../format/tokens';
import { servableSummary } from '../summaries/servable';
import { BudgetPolicy } from './budget';
import { searchArchive } from './searchArchive';
import { sourceGroups } from './sourceGroups';
import type { ContextParts } from './ContextParts';
import { nudgeBlock } from './nudgeTier';
import { otherChannels } from './otherChannels';
import { profileBlock } from './profileTier';
import { recentBlock } from './recentTier';
import { relevantBlock } from './relevantTier';
import { quotedInDigest, summaryBlock } from './summaryTier';

const DAY = 86_400_000;
/**
 * A context that has held the event loop this long lets other work run before its next tier: the first context after a
 * restart runs code V8 has not optimized yet (its tiers took some 15 ms in a new process), and hostile input makes tiers
 * slow too. An ordinary context takes well under a millisecond and never waits.
 */
const HOLD_MS = 6;
/** The order the blocks are joined in. */
const TIER_ORDER: readonly ContextTier[] = ['profile', 'nudge', 'summary', 'relevant', 'recent'];

/** A context, and the stored messages its tiers drew on, by channel. */
export interface BuiltContext {
	context: MemoryContext;
	sources: SourceGroup[];
}

/** Builds the token-budgeted context for one request, as docs/design.md's Context section says. */
export async function buildContext(parts: ContextParts, request: ParsedContextRequest, now: number): Promise<BuiltContext> {
	const { config, store, archive, settings } = parts;
	refillTokenizerAllowance();
	const budget = request.tokenBudget ?? config.contextTokenBudget;
	const lineage = request.personaLineageId ?? request.personaId ?? null;

	// One round trip for everything the request needs to start with.
	const [requester, snapshot] = await Promise.all([settings.user(request.userId), readContextSnapshot(store, request)]);
	const { liveKey, entry: rawEntry, userListings, archiveHead, profile: storedProfile, topics: storedTopics, serverListings } = snapshot;
	// In a DM the live scope is the member's scope of the channel, which a guild channel of the same id cannot share (see entryPlace).
	const entry = rawEntry && !isExpired(rawEntry, config, now) && isEntryOf(rawEntry, request) ? rawEntry : undefined;

	const others = await otherChannels(parts, request, requester.crossServerOptIn, lineage, live(serverListings, now), live(userListings, now), now);
	const otherEntries = (await store.getMany(others.map((listing) => Records.entry(listing.key)))).map((other, index) => ({
		listing: others[index]!,
		entry: other
	}));

	const recentMessages = entry?.messages ?? [];
	const index = await archive.open(liveKey, archiveHead ?? null);
	const slices = new Slices(undefined, HOLD_MS);
	const retentionStart = now - config.archiveRetentionDays * DAY;
	// The relevant tier fits a few dozen messages; it reads twice as many hits, since it passes over repeats and lines too long.
	const hits = index && request.query.trim() ? searchArchive(index, request.query, Math.max(100, Math.ceil(budget / 15)), retentionStart, now) : [];

	// Nothing of a FULL user appears anywhere, even if it was stored before they chose FULL.
	const authors = new Set<string>();
	for (const message of recentMessages) if (message.authorId) authors.add(message.authorId);
	for (const line of entry?.digest ?? []) line.authorIds?.forEach((id) => authors.add(id));
	entry?.backgroundSummary?.authorIds.forEach((id) => authors.add(id));
	for (const { entry: other } of otherEntries) for (const message of other?.messages ?? []) if (message.authorId) authors.add(message.authorId);
	// The relevant tier shows hits and their neighbours, read from the index without making the messages.
	if (index) {
		for (const { at } of hits) {
			for (let near = Math.max(0, at - 1); near <= Math.min(index.size - 1, at + 1); near++) {
				const authorId = index.authorIdAt(near);
				if (authorId) authors.add(authorId);
			}
		}
	}
	const { visible } = await visibilityOf(settings, authors);
	// Every persona whose lines this context may show, and the one answering: a member named like one is marked so.
	const personas = PersonaNames.of(
		[...recentMessages, ...otherEntries.flatMap(({ entry: other }) => other?.messages ?? []), ...(index?.speakers ?? [])],
		[request.personaName]
	);

	const blocks: Partial<Record<ContextTier, ContextBlock>> = {};
	let left = budget;
	const separator = BudgetPolicy.blockSeparatorTokens;
	const place = (block: ContextBlock | null) => {
		if (!block) return;
		blocks[block.tier] = block;
		left -= block.tokens + separator;
	};

	await slices.pause();
	place(entry ? nudgeBlock(entry, config, left) : null);
	const recent = recentBlock(
		recentMessages.filter((message) => visible(message.authorId)),
		Math.min(left, Math.floor(budget * BudgetPolicy.recentShare)),
		personas
	);
	place(recent);
	await slices.pause();
	const digest = linesOfAuthors(entry?.digest ?? [], visible);
	// A background summary drawn from a FULL member's words is not shown; the digest without them is.
	const servable = entry ? servableSummary(entry) : null;
	const background = servable && servable.authorIds.every(visible) ? servable : null;
	const summary = summaryBlock(
		entry,
		digest,
		background,
		otherEntries,
		request,
		visible,
		config,
		Math.min(left, Math.floor(budget * BudgetPolicy.summaryShare)),
		now,
		personas
	);
	place(summary);
	// Long-term memory is for MINIMAL users only, even if something was stored before they changed level.
	if (requester.privacyLevel === PrivacyLevel.MINIMAL) {
		place(profileBlock(storedProfile, storedTopics, request.query, Math.min(left, Math.floor(budget * BudgetPolicy.profileShare))));
	}
	const shown = new Set([...(recent?.sourceIds ?? []), ...quotedInDigest(digest, summary)]);
	if (index) {
		await slices.pause();
		const usable = (at: number) => visible(index.authorIdAt(at)) && index.timeAt(at) >= retentionStart && !shown.has(index.idAt(at));
		const relevant = relevantBlock(index, hits, usable, left, personas);
		if (relevant) blocks.relevant = relevant;
	}

	const ordered = TIER_ORDER.flatMap((tier) => (blocks[tier] ? [blocks[tier]!] : []));
	const tokens = ordered.reduce((sum, block) => sum + block.tokens, 0) + Math.max(0, ordered.length - 1) * separator;
	return {
		context: { text: ordered.map((block) => block.text).join('\n\n'), tokens, blocks: ordered },
		sources: sourceGroups(ordered, request, otherEntries)
	};
}
