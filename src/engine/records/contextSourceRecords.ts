import { fnv1a } from '../format/fnv1a';
import type { ContextSourcesRecord, SourceGroup } from '../schemas';
import type { RecordStore, RecordWrite } from './RecordStore';
import { type RecordKey, Records } from './Records';

/**
 * Slots per member: a record goes to the slot its reply's id hashes to, replacing what was there. A member's records are
 * so at most this many, each found with one read and all erased without a list of them; a reply asked about after
 * fifteen newer ones may have lost its slot, which a member asking about a recent reply never sees.
 */
export const SOURCE_SLOTS = 16;
/** Source ids one record keeps at most (a 16,000-token context draws on some 400 messages): the rest are counted. */
export const MAX_RECORDED_SOURCES = 200;

function slotOf(replyId: string): number {
	return (fnv1a(replyId) >>> 0) % SOURCE_SLOTS;
}

/** Every slot's key of a member: what their erasure deletes. */
export function contextSourceKeys(userId: string): RecordKey<ContextSourcesRecord>[] {
	return Array.from({ length: SOURCE_SLOTS }, (_, slot) => Records.contextSources(userId, slot));
}

/**
 * Deletes the records of `userIds` that name `serverId`, where the reply was or where a message it drew on was: a server
 * erased leaves no record that names it.
 */
export async function dropRecordsNaming(store: RecordStore, userIds: readonly string[], serverId: string): Promise<void> {
	const naming = (record: ContextSourcesRecord) => record.serverId === serverId || record.groups.some((group) => group.serverId === serverId);
	await store.updateMany(userIds.flatMap(contextSourceKeys), (_, record) => (record && naming(record) ? 'delete' : null));
}

/** The groups as a record keeps them: the first {@link MAX_RECORDED_SOURCES} ids, in the context's order, and how many were left out. */
export function boundedGroups(groups: readonly SourceGroup[]): { groups: SourceGroup[]; omitted: number } {
	let room = MAX_RECORDED_SOURCES;
	let omitted = 0;
	const kept: SourceGroup[] = [];
	for (const group of groups) {
		const ids = group.ids.slice(0, room);
		omitted += group.ids.length - ids.length;
		room -= ids.length;
		if (ids.length > 0) kept.push({ ...group, ids });
	}
	return { groups: kept, omitted };
}

/** The records of what each persona reply's context drew on, in each member's slots. */
export class ContextSourceRecords {
	public constructor(
		private readonly store: RecordStore,
		/** How long a record lives: the short-term TTL. */
		private readonly ttlMs: number
	) {}

	/** The writes that keep each record under the member it answered, in its reply's slot, expiring after the TTL. */
	public writes(userId: string, records: readonly ContextSourcesRecord[]): RecordWrite<ContextSourcesRecord>[] {
		return records.map((record) => ({ key: Records.contextSources(userId, slotOf(record.replyId)), value: record, ttlMs: this.ttlMs }));
	}

	/** The member's record of one reply, if its slot still holds it and the TTL has not passed. */
	public async find(userId: string, replyId: string, now: number): Promise<ContextSourcesRecord | null> {
		const record = await this.store.get(Records.contextSources(userId, slotOf(replyId)));
		return record && record.replyId === replyId && this.live(record, now) ? record : null;
	}

	/** How many replies' records the member has, as `/session status` counts them. */
	public async count(userId: string, now: number): Promise<number> {
		const records = await this.store.getMany(contextSourceKeys(userId));
		return records.filter((record) => record !== undefined && this.live(record, now)).length;
	}

	/** Drops the member's record of one reply (a reply forgotten takes what it drew on with it). */
	public async drop(userId: string, replyId: string): Promise<void> {
		// Compared and deleted at once: a newer reply's record written to the slot meanwhile stays.
		await this.store.update(Records.contextSources(userId, slotOf(replyId)), (record) => (record?.replyId === replyId ? 'delete' : null));
	}

	private live(record: ContextSourcesRecord, now: number): boolean {
		return record.at + this.ttlMs > now;
	}
}
