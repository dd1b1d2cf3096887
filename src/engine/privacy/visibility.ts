import { PrivacyLevel, type UserSettings } from '../schemas';

/**
 * Who may be seen in memory: the one rule behind "nothing of a FULL member appears anywhere". Capture,
 * the digest, the context and the background summarizer all ask it, so a FULL member's words are never
 * stored, folded, shown or sent to an LLM, even when they were stored before the member chose FULL.
 */
export interface Visibility {
	/** False for a FULL member; true for everyone else, and for a message with no author. */
	visible: (authorId: string | undefined) => boolean;
	/**
	 * Whether a message `authorId` wrote at `ts` may be stored (or folded): never a FULL member's, nor one
	 * written at or before the moment the member last cleared, erased or left FULL.
	 */
	storable: (authorId: string | undefined, ts: number) => boolean;
}

/**
 * The visibility of the members `authorIds` names, from their settings, given in the same order; `serverId` is where
 * the messages asked about were written (a member who left that server is forgotten there).
 */
export function visibilityFrom(authorIds: readonly string[], settings: readonly UserSettings[], serverId?: string | null): Visibility {
	const hiddenUntil = new Map<string, number>();
	authorIds.forEach((id, at) => {
		const member = settings[at]!;
		hiddenUntil.set(id, member.privacyLevel === PrivacyLevel.FULL ? Number.POSITIVE_INFINITY : forgottenBefore(member, serverId));
	});
	return {
		visible: (authorId) => !authorId || hiddenUntil.get(authorId) !== Number.POSITIVE_INFINITY,
		storable: (authorId, ts) => !authorId || ts > (hiddenUntil.get(authorId) ?? Number.NEGATIVE_INFINITY)
	};
}

/** Reads members' settings, in the order asked (the records layer's `SettingsRepository`). */
export interface SettingsReader {
	manyUsers(userIds: readonly string[]): Promise<UserSettings[]>;
}

/** The visibility of `authorIds` (of messages written in `serverId`, when given), their settings read in one round trip. */
export async function visibilityOf(settings: SettingsReader, authorIds: Iterable<string>, serverId?: string | null): Promise<Visibility> {
	const ids = [...new Set(authorIds)];
	return visibilityFrom(ids, await settings.manyUsers(ids), serverId);
}

/**
 * The newest moment at or before which capture drops a member's messages: when they last cleared or erased
 * their memory, or left FULL (what they wrote while invisible stays out), or, for messages written in `serverId`,
 * left that server. -Infinity when none.
 */
export function forgottenBefore(settings: UserSettings, serverId?: string | null): number {
	return Math.max(
		settings.clearedBefore ?? Number.NEGATIVE_INFINITY,
		settings.erasedBefore ?? Number.NEGATIVE_INFINITY,
		settings.fullUntil ?? Number.NEGATIVE_INFINITY,
		(serverId ? settings.leftServers?.[serverId] : undefined) ?? Number.NEGATIVE_INFINITY
	);
}
