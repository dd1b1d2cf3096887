import { carriesWordsOf } from '../privacy/voices';
import type { MemoryConfig } from '../config';
import { datedLines, dayLabel, itemLine, relativeTime } from '../format/lines';
import { channelLine, Headers } from '../format/pluginLines';
import type { PersonaNames } from '../format/speakers';
import { tokenCount } from '../format/tokens';
import { byTime, isExpired } from '../ledger/entries';
import type { BackgroundSummary, ContextBlock, DigestLine, ParsedContextRequest, ShortTermEntry, StoredMessage } from '../schemas';
import { DM_SERVER_ID } from '../schemas/primitives';
import { byWorth } from '../summaries/digest/information';
import { byLine, digestLineText, renderDigest } from '../summaries/digest/renderDigest';
import { linesPastSummary } from '../summaries/servable';
import { BudgetPolicy, dayLineTokens, fitMessages, measured } from './budget';
import type { OtherEntry } from './otherChannels';

/**
 * The summary tier: this channel's summary (the tool's, else the background one and the digest lines since, else
 * the digest), then other channels' memories, each with its summary and newest messages.
 */
export function summaryBlock(
	entry: ShortTermEntry | undefined,
	digest: readonly DigestLine[],
	background: BackgroundSummary | null,
	others: OtherEntry[],
	request: ParsedContextRequest,
	visible: (authorId: string | undefined) => boolean,
	config: MemoryConfig,
	budget: number,
	now: number,
	personas: PersonaNames
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
		add(Headers.summary);
		for (const line of own) if (!add(line)) break;
		if (entry) sourceIds.push(...entry.messages.map((message) => message.id));
	} else if (background) {
		// The background summary replaces the digest lines it covers; those written since follow it.
		add(Headers.summary);
		// One fact per line, as the summarizer writes it (citations.ts).
		for (const line of background.text.split('\n')) if (!add(itemLine(line))) break;
		sourceIds.push(...background.sourceIds);
		const header = Headers.digestSince;
		const later = fitDigest(linesPastSummary({ digest: [...digest], backgroundSummary: background }), budget - used - tokenCount(header) - 1);
		if (later.length > 0 && add(header)) {
			for (const line of renderDigest(later)) add(line);
			sourceIds.push(...later.flatMap((line) => line.sourceIds));
		}
	} else if (digest.length > 0) {
		// Without the tool's summary, the digest of what left the window: its newest lines that fit.
		const header = Headers.digest;
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
		// Memories from another server show only what this user said and the personas' replies to their turns; their own DM is theirs whole.
		const fromElsewhere = other.serverId !== here;
		const ownDm = other.serverId === DM_SERVER_ID && other.userId === request.userId;
		const messages = other.messages.filter(
			(message) => visible(message.authorId) && (!fromElsewhere || ownDm || carriesWordsOf(message, request.userId))
		);
		const where = fromElsewhere ? (other.serverId === DM_SERVER_ID ? ' (DM)' : ' (another server)') : '';
		const label = channelLine(listing.channelId, where, relativeTime(other.lastUpdated, now));
		const body = summaryLines(other);
		const remaining = budget - used - (lines.length > 0 ? 1 : 0) - (headed ? 0 : tokenCount(Headers.otherChannels) + 1) - tokenCount(label) - 1;
		const crude = fitMessages(
			[...messages].sort(byTime).reverse().slice(0, config.crudeMessageCount),
			remaining - body.reduce((sum, line) => sum + tokenCount(line) + 1, 0),
			0,
			personas
		);
		if (body.length === 0 && crude.length === 0) continue;
		if (!headed && !add(Headers.otherChannels)) break;
		headed = true;
		if (!add(label)) break;
		for (const line of body) if (!add(line)) break;
		for (const line of datedLines(crude, personas)) if (!add(line)) break;
		sourceIds.push(...crude.map((message) => message.id));
	}
	if (lines.length === 0 || (lines.length === 1 && headed)) return null;
	const { text, tokens } = measured(lines);
	return { tier: 'summary', text, tokens, sourceIds };
}

/**
 * The digest lines whose lines (and the date lines that open each day) fit in `budget` tokens, the most
 * informative first, as the digest keeps them ({@link byWorth}); shown oldest first.
 */
function fitDigest(lines: readonly DigestLine[], budget: number): DigestLine[] {
	const chosen: DigestLine[] = [];
	const days = new Set<string>();
	let used = 0;
	for (const line of byWorth(lines)) {
		const day = dayLabel(line.ts);
		const cost = tokenCount(digestLineText(line)) + 1 + (days.has(day) ? 0 : dayLineTokens(day) + 1);
		// A line too long for the room is passed over only until one fits: the rest of the room goes to the relevant tier.
		if (used + cost > budget) {
			if (chosen.length === 0) continue;
			break;
		}
		used += cost;
		days.add(day);
		chosen.push(line);
	}
	return chosen.sort(byLine);
}

/** Messages the summary block already quotes whole through its digest lines: the relevant tier does not repeat them. */
export function quotedInDigest(digest: readonly DigestLine[], summary: ContextBlock | null): string[] {
	const shown = new Set(summary?.sourceIds);
	return digest
		.filter((line) => line.kind === 'event' && !line.text.endsWith('…') && line.sourceIds.every((id) => shown.has(id)))
		.flatMap((line) => line.sourceIds);
}

function summaryLines(entry: ShortTermEntry | undefined): string[] {
	if (!entry) return [];
	const lines: string[] = [];
	if (entry.summary?.trim()) lines.push(itemLine(entry.summary));
	for (const [name, text] of Object.entries(entry.categories ?? {})) if (text.trim()) lines.push(itemLine(`${name}: ${text}`));
	return lines;
}
