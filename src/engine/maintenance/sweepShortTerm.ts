import { type DirectoryOwner, directoryKey } from '../ledger/ScopeDirectory';
import { isExpired } from '../ledger/entries';
import type { Listings, ShortTermEntry } from '../schemas';
import { inBatches } from './batches';
import type { SweepParts, SweepResult } from './SweepResult';
import { Records } from '../records/Records';
import type { RegistrySlice } from '../records/Registry';

/**
 * Deletes the short-term entries whose listings say they expired (each is read first: only an
 * entry expired at `now` goes), then their listings, then directories left empty.
 */
export async function sweepShortTerm(parts: SweepParts, now: number, result: SweepResult): Promise<void> {
	// A guild's user-scope entry is listed twice (under its user and its channel): it is read once.
	const seen: SweptEntries = { checked: new Set(), deleted: new Set() };
	for (const kind of ['servers', 'users', 'channels'] as const) {
		for await (const { partition, ids } of parts.registry.slices(kind))
			await sweepSlice(
				parts,
				now,
				result,
				seen,
				partition,
				ids.map((id): DirectoryOwner => [kind, id])
			);
	}
}

/** The entries this sweep has read, and those it deleted. */
interface SweptEntries {
	checked: Set<string>;
	deleted: Set<string>;
}

/** The directories of one slice of a registry (read from `partition`), a batch at a time. */
async function sweepSlice(
	parts: SweepParts,
	now: number,
	result: SweepResult,
	seen: SweptEntries,
	partition: RegistrySlice['partition'],
	owners: DirectoryOwner[]
): Promise<void> {
	const { config } = parts;
	const { checked, deleted } = seen;
	await inBatches(owners, async (batch) => {
		const directories = await parts.ledger.store.getMany<Listings>(batch.map(directoryKey));
		const due = [
			...new Set(
				directories.flatMap((listings) =>
					Object.values(listings ?? {})
						.filter((listing) => listing.expiresAt <= now && !checked.has(listing.key))
						.map((listing) => listing.key)
				)
			)
		];
		const stale: { key: string; entry: ShortTermEntry }[] = [];
		await inBatches(due, (keys) =>
			parts.ledger.store.locked(keys.map(Records.entry), async () => {
				const entries = await parts.ledger.store.getMany(keys.map(Records.entry));
				const gone = keys.filter((_, index) => !entries[index] || isExpired(entries[index]!, config, now));
				await parts.ledger.store.delete(gone.map(Records.entry));
				result.entriesDeleted += entries.filter((entry) => entry && isExpired(entry, config, now)).length;
				for (const key of keys) checked.add(key);
				for (const key of gone) deleted.add(key);
				// Written since its listing was: the listing learns its new lifetime.
				for (const [index, entry] of entries.entries()) if (entry && !isExpired(entry, config, now)) stale.push({ key: keys[index]!, entry });
			})
		);
		if (stale.length > 0) await parts.ledger.directory.track(stale, now);
		for (const [index, owner] of batch.entries()) {
			const listings = Object.entries(directories[index] ?? {});
			if (listings.length > 0 && !listings.some(([key, listing]) => deleted.has(key) && listing.expiresAt <= now)) continue;
			const expired = await parts.ledger.directory.expire(owner, partition, deleted, now);
			result.listingsDeleted += expired.listings;
			if (expired.directoryDeleted) result.directoriesDeleted++;
		}
	});
}
