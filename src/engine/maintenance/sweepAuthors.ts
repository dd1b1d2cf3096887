import type { ArchiveHead, AuthorListing, AuthorListings, ShortTermEntry } from '../schemas';
import { isExpired } from '../ledger/entries';
import { Records } from '../records/Records';
import type { RegistrySlice } from '../records/Registry';
import { serverOfLiveScope } from '../records/registryLayout';
import type { ArchiveSweep } from './sweepArchives';
import { inBatches } from './batches';
import type { SweepParts, SweepResult } from './SweepResult';

/**
 * Brings each author index in line with what the scopes still hold: counts lose the messages the
 * archive pass deleted, and a scope goes from the index once neither its live short-term entry nor
 * its archive can hold the author's messages (the archive is gone, or the author's newest message
 * there is older than everything it kept).
 */
export async function sweepAuthors(parts: SweepParts, now: number, archives: ArchiveSweep, result: SweepResult): Promise<void> {
	for await (const slice of parts.registry.slices('authors')) await sweepSlice(parts, now, archives, result, slice);
}

/** The author indexes of one slice of the registry, a batch at a time. */
async function sweepSlice(parts: SweepParts, now: number, archives: ArchiveSweep, result: SweepResult, slice: RegistrySlice): Promise<void> {
	const { config } = parts;
	const { floors } = archives;
	await inBatches(slice.ids, async (authorIds) => {
		const indexes = await parts.ledger.store.getMany<AuthorListings>(authorIds.map(Records.authors));
		const scopes = [...new Set(indexes.flatMap((index) => Object.keys(index ?? {})))];
		// An archive the registry did not list (written before it existed): registered now, kept until a sweep has looked at it.
		const unlisted = scopes.filter((scopeKey) => !floors.has(scopeKey));
		const [entries, heads] = await Promise.all([
			parts.ledger.store.getMany(scopes.map(Records.entry)),
			parts.ledger.store.getMany<ArchiveHead>(unlisted.map(Records.archiveHead))
		]);
		for (const [index, scopeKey] of unlisted.entries()) {
			if (heads[index]) await parts.registry.note('archives', serverOfLiveScope(scopeKey), scopeKey);
			else floors.set(scopeKey, null);
		}
		const entryOf = new Map(scopes.map((scopeKey, index) => [scopeKey, entries[index]]));

		for (const [index, authorId] of authorIds.entries()) {
			const deleted = archives.deletedByAuthor.get(authorId);
			const change = (scopeKey: string, listing: AuthorListing): AuthorListing | null => {
				// Unknown here (listed since this batch was read): kept.
				if (!entryOf.has(scopeKey) || !floors.has(scopeKey)) return listing;
				const entry = entryOf.get(scopeKey);
				const inEntry =
					entry !== undefined && !isExpired(entry, config, now) && entry.messages.some((message) => message.authorId === authorId);
				const floor = floors.get(scopeKey)!;
				if (!inEntry && (floor === null || listing.lastTs < floor)) return null;
				const count = deleted?.get(scopeKey) ?? 0;
				return count > 0 ? { ...listing, count: Math.max(0, listing.count - count) } : listing;
			};
			// Most indexes need nothing: only those that do are read again and rewritten under their lock.
			const stored = indexes[index];
			if (stored && Object.entries(stored).every(([scopeKey, listing]) => change(scopeKey, listing) === listing)) continue;
			const pruned = await parts.ledger.authors.prune(authorId, slice.partition, change);
			result.authorListingsDeleted += pruned.listings;
			if (pruned.indexDeleted) result.authorIndexesDeleted++;
		}
	});
}
