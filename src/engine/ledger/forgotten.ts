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
export class ForgottenReplies {
	private readonly byChannel = new Map<string, { serverId: string | null; channelId: string; ids: Set<string> }>();

	/** Notes the persona messages among `messages`, found in a scope of `serverId` (`DM` or null in DMs) and `channelId`. */
	public note(where: { serverId: string | null; channelId: string }, messages: readonly StoredMessage[]): void {
		const replies = messages.filter((message) => message.role === 'persona');
		if (replies.length === 0) return;
		const fingerprints = replies.flatMap((reply) => replyFingerprint(reply) ?? []);
		const serverId = where.serverId === DM_SERVER_ID ? null : where.serverId;
		const key = `${serverId ?? DM_SERVER_ID}:${where.channelId}`;
		const channel = this.byChannel.get(key) ?? { serverId, channelId: where.channelId, ids: new Set<string>() };
		for (const id of [...replies.map((reply) => reply.id), ...fingerprints]) channel.ids.add(id);
		this.byChannel.set(key, channel);
	}

	/** Each channel's replies: `serverId` null for a DM. */
	public channels(): { serverId: string | null; channelId: string; messageIds: string[] }[] {
		return [...this.byChannel.values()].map(({ serverId, channelId, ids }) => ({ serverId, channelId, messageIds: [...ids] }));
	}
}

/**
 * The ids of a channel's messages deleted on Discord that capture must still leave out at `now`: a host
 * may pass a deleted message in a later turn's history (its own cache, a reply's reference), and it must
 * not come back.
 */
export function forgottenIds(stored: ForgottenMessages | undefined, now: number): ReadonlySet<string> {
	if (!stored) return EMPTY;
	return new Set(Object.keys(stored).filter((id) => stored[id]! > now));
}

const EMPTY: ReadonlySet<string> = new Set();

/** Whether capture leaves `message` out: its id is forgotten, or (a reply without a host id) its text. */
export function isForgotten(forgotten: ReadonlySet<string>, message: StoredMessage): boolean {
	if (forgotten.has(message.id)) return true;
	const fingerprint = replyFingerprint(message);
	return fingerprint !== null && forgotten.has(fingerprint);
}

/**
 * Adds message ids to a channel's forgotten list (`forgotten:<serverId>:<channelId>`), each kept until
 * `until`: as long as any copy of the message could otherwise come back. Expired ids leave the list as it
 * is rewritten; the list is registered, so the sweep deletes it once every id has expired.
 */
export async function markForgotten(
	parts: { store: RecordStore; registry: Registry },
	where: { serverId: string; channelId: string },
	messageIds: readonly string[],
	now: number,
	until: number
): Promise<void> {
	await markForgottenMany(parts, [{ where, messageIds }], now, until);
}

/** {@link markForgotten} of several channels' lists (each channel once), in one round trip. */
export async function markForgottenMany(
	parts: { store: RecordStore; registry: Registry },
	lists: readonly { where: { serverId: string; channelId: string }; messageIds: readonly string[] }[],
	now: number,
	until: number
): Promise<void> {
	const marked = lists.filter(({ messageIds }) => messageIds.length > 0);
	if (marked.length === 0) return;
	// Before the write, so a process killed after it leaves no list the sweep never visits.
	await Promise.all(marked.map(({ where }) => parts.registry.note('forgotten', where.serverId, `${where.serverId}:${where.channelId}`)));
	const byKey = new Map(marked.map(({ where, messageIds }) => [Records.forgotten(where.serverId, where.channelId), messageIds]));
	await parts.store.updateMany<ForgottenMessages>([...byKey.keys()], (key, current) => {
		const next: ForgottenMessages = {};
		for (const [messageId, expiresAt] of Object.entries(current ?? {})) if (expiresAt > now) next[messageId] = expiresAt;
		for (const messageId of byKey.get(key)!) next[messageId] = Math.max(next[messageId] ?? 0, until);
		return { value: next, ttlMs: Math.max(...Object.values(next)) - now + SWEEP_SLACK_MS };
	});
}

/** The sweep's part: drops the expired ids of every registered list; a list left empty goes with its registry id. Returns the ids dropped. */
export async function expireForgotten(parts: { store: RecordStore; registry: Registry }, now: number): Promise<number> {
	let dropped = 0;
	for await (const slice of parts.registry.slices('forgotten')) {
		for (const id of slice.ids) {
			const [serverId, channelId] = id.split(':');
			const key = Records.forgotten(serverId!, channelId!);
			let empty = false;
			await parts.store.update<ForgottenMessages>(key, (current) => {
				const kept = Object.entries(current ?? {}).filter(([, expiresAt]) => expiresAt > now);
				dropped += Object.keys(current ?? {}).length - kept.length;
				empty = kept.length === 0;
				if (kept.length === Object.keys(current ?? {}).length && current) return null;
				if (empty) return 'delete';
				return { value: Object.fromEntries(kept), ttlMs: Math.max(...kept.map(([, expiresAt]) => expiresAt)) - now + SWEEP_SLACK_MS };
			});
			if (empty) await parts.registry.removeFrom([{ partition: slice.partition, ids: [id] }]);
		}
	}
	return dropped;
}
