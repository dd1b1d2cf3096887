import { type ContextBlock, type ParsedContextRequest, SOURCE_TIERS, type SourceGroup, type SourceTier } from '../schemas';
import { DM_SERVER_ID } from '../schemas/primitives';
import type { OtherEntry } from './otherChannels';

/**
 * The stored messages a context's tiers drew on, by tier and channel, in the context's order: its own channel's, and the
 * other channels' whose memories the summary tier showed. Ids only.
 */
export function sourceGroups(blocks: readonly ContextBlock[], request: ParsedContextRequest, others: readonly OtherEntry[]): SourceGroup[] {
	const elsewhere = new Map<string, { serverId: string | null; channelId: string }>();
	for (const { listing, entry } of others) {
		const place = { serverId: listing.serverId === DM_SERVER_ID ? null : listing.serverId, channelId: listing.channelId };
		for (const message of entry?.messages ?? []) elsewhere.set(message.id, place);
	}
	const here = { serverId: request.serverId, channelId: request.channelId };
	const groups = new Map<string, SourceGroup>();
	for (const block of blocks) {
		if (!isSourceTier(block.tier)) continue;
		for (const id of new Set(block.sourceIds)) {
			const place = elsewhere.get(id) ?? here;
			const key = `${block.tier}|${place.serverId ?? ''}|${place.channelId}`;
			const group = groups.get(key) ?? { tier: block.tier, ...place, ids: [] };
			group.ids.push(id);
			groups.set(key, group);
		}
	}
	return [...groups.values()];
}

function isSourceTier(tier: string): tier is SourceTier {
	return (SOURCE_TIERS as readonly string[]).includes(tier);
}
