import type { MemoryConfig } from '../config';
import { replyFingerprint } from '../privacy/voices';
import type { ForgottenMessages, StoredMessage } from '../schemas';
import { Records } from '../records/Records';
import { DM_SERVER_ID } from '../schemas/primitives';
import type { RecordStore } from '../records/RecordStore';
import type { Registry } from '../records/Registry';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How long the backend keeps a list past its last id, so that the sweep, not the backend, is what deletes it. */
const SWEEP_SLACK_MS = DAY;

/**
 * Until when a forgotten id stays on its channel's list: as long as the archive keeps a message, or a
 * short-term entry holding one lives. A host passes recent messages as history; one older than that
 * would fold into nothing the context serves for long.
 */
export function forgottenUntil(config: MemoryConfig, now: number): number {
	return now + Math.max(config.archiveRetentionDays * DAY, config.summaryTtlHours * HOUR);
}

/**
 * The persona replies an erasure found, by channel. Only the copy a reply's own turn stored names the
 * member it answered; other personas' turns and other members' turns carried it in their histories as a
 * plain persona message. So once the erasure has found the replies, they are taken out of every copy of
 * their channel by id, as a message deleted on Discord is, and go on the channel's forgotten list.
 */
/**
 * The ids a message is forgotten by: its own, and for a persona reply the host gave no id its text's fingerprint, since
 * later histories carry it under another id (see replyFingerprint).
 */
export function forgottenBy(message: StoredMessage): string[] {
	const fingerprint = replyFingerprint(message);
	return fingerprint === null ? [message.id] : [message.id, fingerprint];
}

export class ForgottenReplies {
	private readonly byChannel = new Map<string, { serverId: string | null; channelId: string; ids: Set<string> }>();

	/** Notes the persona messages among `messages`, found in a scope of `serverId` (`DM` or null in DMs) and `channelId`. */
	public note(where: { serverId: string | null; channelId: string }, messages: readonly StoredMessage[]): void {
		const replies = messages.filter((message) => message.role === 'persona');
		if (replies.length === 0) return;
		const serverId = where.serverId === DM_SERVER_ID ? null : where.serverId;
		const key = `${serverId ?? DM_SERVER_ID}:${where.channelId}`;
		const channel = this.byChannel.get(key) ?? { serverId, channelId: where.channelId, ids: new Set<string>() };
		for (const id of replies.flatMap(forgottenBy)) channel.ids.add(id);
		this.byChannel.set(key, channel);
	}

	/** Each channel's replies: `serverId` null for a DM. */
	public channels(): { serverId: string | null; channelId: string; messageIds: string[] }[] {
		return [...this.byChannel.values()].map(({ serverId, channelId, ids }) => ({ serverId, channelId, messageIds: [...ids] }));
	}
}

/** Where a channel's forgotten messages are kept: `serverId` is `DM` in DMs. */
export interface ForgottenChannel {
	serverId: string;
	channelId: string;
}

/**
 * What capture reads to know which of a turn's messages were deleted on Discord, whose ids a host may pass again in a
 * later turn's history (its own cache, a reply's reference): the record of each id (and reply fingerprint) among them,
 * and the channel's list of the layout before. The reading costs what the turn holds, not what the channel ever lost.
 */
export function forgottenLookup(channel: ForgottenChannel, messages: readonly StoredMessage[]) {
	const ids = [...new Set(messages.flatMap(forgottenBy))];
	return {
		keys: [
			Records.forgotten(channel.serverId, channel.channelId),
			...ids.map((id) => Records.forgottenMessage(channel.serverId, channel.channelId, id))
		],
		/** The ids still left out at `now`, from the values of `keys` read in their order. */
		forgotten(values: readonly unknown[], now: number): ReadonlySet<string> {
			const list = (values[0] as ForgottenMessages | undefined) ?? {};
			const left = ids.filter((id, index) => (values[index + 1] as number | undefined)! > now || list[id]! > now);
			return left.length === 0 ? EMPTY : new Set(left);
		}
	};
}

const EMPTY: ReadonlySet<string> = new Set();

/** Whether capture leaves `message` out: its id is forgotten, or (a reply without a host id) its text. */
export function isForgotten(forgotten: ReadonlySet<string>, message: StoredMessage): boolean {
	if (forgotten.has(message.id)) return true;
	const fingerprint = replyFingerprint(message);
	return fingerprint !== null && forgotten.has(fingerprint);
}

/**
 * Puts message ids on a channel's forgotten list, each kept until `until`: as long as any copy of the message could
 * otherwise come back. Each id is a record of its own (`gone:<tag>:<id>`, until when) that the backend expires with it,
 * and a member of the channel's set of ids, which the sweep walks; the channel is registered before, so that the sweep
 * visits it. Blind writes: nothing is read, whatever the channel lost before.
 */
export async function markForgotten(
	parts: { store: RecordStore; registry: Registry },
	where: ForgottenChannel,
	messageIds: readonly string[],
	now: number,
	until: number
): Promise<void> {
	await markForgottenMany(parts, [{ where, messageIds }], now, until);
}

/** {@link markForgotten} of several channels' ids, in one write. */
export async function markForgottenMany(
	parts: { store: RecordStore; registry: Registry },
	lists: readonly { where: ForgottenChannel; messageIds: readonly string[] }[],
	now: number,
	until: number
): Promise<void> {
	const marked = lists.filter(({ messageIds }) => messageIds.length > 0);
	if (marked.length === 0) return;
	// Before the write, so a process killed after it leaves no ids the sweep never visits.
	await Promise.all(marked.map(({ where }) => parts.registry.note('forgotten', where.serverId, `${where.serverId}:${where.channelId}`)));
	const ttlMs = until - now + SWEEP_SLACK_MS;
	await parts.store.setMany(
		marked.flatMap(({ where, messageIds }) =>
			messageIds.map((id) => ({ key: Records.forgottenMessage(where.serverId, where.channelId, id), value: until, ttlMs }))
		),
		marked.map(({ where, messageIds }) => ({ key: Records.forgottenIds(where.serverId, where.channelId), members: [...messageIds] }))
	);
}

/** Ids read, and expired ones deleted, at a time by the sweep. */
const IDS_PER_SLICE = 1_000;

/**
 * The sweep's part: in every registered channel, moves the ids of a list of the layout before into records of their own,
 * then deletes the records past their time (or gone with the backend's expiry) and takes them out of the channel's set, a
 * slice at a time; a channel left with none leaves the registry. Returns the ids dropped.
 */
export async function expireForgotten(parts: { store: RecordStore; registry: Registry }, now: number): Promise<number> {
	let dropped = 0;
	for await (const slice of parts.registry.slices('forgotten')) {
		for (const id of slice.ids) {
			const [serverId, channelId] = id.split(':') as [string, string];
			const channel = { serverId, channelId };
			dropped += await moveList(parts, channel, now);
			const { expired, left } = await expireIds(parts.store, channel, now);
			dropped += expired;
			if (!left) await parts.registry.removeFrom([{ partition: slice.partition, ids: [id] }]);
		}
	}
	return dropped;
}

/**
 * Moves a channel's list of the layout before (id → until) into records of their own, then deletes the list if it holds
 * no more than was moved (an older process still running may have added to it: then the next sweep moves those).
 * Returns the expired ids the list held.
 */
async function moveList(parts: { store: RecordStore; registry: Registry }, channel: ForgottenChannel, now: number): Promise<number> {
	const key = Records.forgotten(channel.serverId, channel.channelId);
	const list = await parts.store.get(key);
	if (!list) return 0;
	const live = Object.entries(list).filter(([, until]) => until > now);
	for (const [until, ids] of groupByUntil(live)) await markForgottenMany(parts, [{ where: channel, messageIds: ids }], now, until);
	await parts.store.update(key, (current) => (Object.keys(current ?? {}).every((id) => id in list) ? 'delete' : null));
	return Object.keys(list).length - live.length;
}

/** Ids by the time they are kept until. */
function groupByUntil(entries: readonly [string, number][]): Map<number, string[]> {
	const byUntil = new Map<number, string[]>();
	for (const [id, until] of entries) {
		const ids = byUntil.get(until);
		if (ids) ids.push(id);
		else byUntil.set(until, [id]);
	}
	return byUntil;
}

/** A channel's forgotten ids, a slice of its set at a time in the set's order, each id with its record's key. */
async function* forgottenSlices(store: RecordStore, { serverId, channelId }: ForgottenChannel) {
	for (let after: string | null = null; ; ) {
		const ids = await store.setMembersPage(Records.forgottenIds(serverId, channelId), after, IDS_PER_SLICE);
		if (ids.length === 0) return;
		after = ids.at(-1)!;
		yield ids.map((id) => ({ id, key: Records.forgottenMessage(serverId, channelId, id) }));
	}
}

/** Deletes a channel's forgotten records past their time, a slice of its set at a time; says whether any is left. */
async function expireIds(store: RecordStore, channel: ForgottenChannel, now: number): Promise<{ expired: number; left: boolean }> {
	let expired = 0;
	let left = false;
	for await (const slice of forgottenSlices(store, channel)) {
		const untils = await store.getMany(slice.map(({ key }) => key));
		// A record the backend dropped is past its time too; one that cannot be read stays until the backend drops it.
		const gone = slice.filter((_, index) => !(untils[index]! > now));
		left ||= gone.length < slice.length;
		if (gone.length === 0) continue;
		await store.delete(gone.map(({ key }) => key));
		await store.removeFromSets([{ key: Records.forgottenIds(channel.serverId, channel.channelId), members: gone.map(({ id }) => id) }]);
		expired += gone.length;
	}
	return { expired, left };
}

/** Deletes every forgotten record of the channels, and their lists and sets (a server's purge). */
export async function deleteForgotten(store: RecordStore, serverId: string, channelIds: readonly string[]): Promise<void> {
	for (const channelId of channelIds) {
		for await (const slice of forgottenSlices(store, { serverId, channelId })) await store.delete(slice.map(({ key }) => key));
		await store.deleteSets([Records.forgottenIds(serverId, channelId)]);
	}
	await store.delete(channelIds.map((channelId) => Records.forgotten(serverId, channelId)));
}
