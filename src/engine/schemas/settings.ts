import { z } from 'zod';
import { PrivacyLevel } from './turn';

/** In `privateChannelIds`: every channel of the server is private (what unreadable server settings read as). */
export const EVERY_CHANNEL = '*';

/**
 * A member's settings as stored. Settings that cannot be read fail safe for privacy: an unknown level
 * reads as FULL (see store/storedValues.ts).
 */
export const UserSettingsSchema = z.object({
	privacyLevel: z.enum(PrivacyLevel).catch(PrivacyLevel.FULL),
	crossServerOptIn: z.boolean().catch(false),
	/**
	 * Set by `clearShortTerm` (milliseconds since the epoch): capture never stores again a message of
	 * this user written at or before it, so a bot's re-fetched history does not undo the clear.
	 */
	clearedBefore: z.number().optional().catch(undefined),
	/** Set by `clearAll`: the same barrier, for the erasure of everything. */
	erasedBefore: z.number().optional().catch(undefined),
	/**
	 * Set when the member last left FULL: what they wrote until then, while invisible, is never stored,
	 * even when a later turn's history carries it.
	 */
	fullUntil: z.number().optional().catch(undefined),
	/**
	 * Server id → when the member left it (with `MEMORY_FORGET_MEMBERS_WHO_LEAVE`): what they wrote there until then is
	 * never stored again, even when a later turn's history carries it.
	 */
	leftServers: z.record(z.string(), z.number()).optional().catch(undefined)
});

/** A member's settings (`getUserSettings`, `setUserSettings`): their privacy level, the cross-server opt-in and the barriers their erasures set. */
export type UserSettings = z.output<typeof UserSettingsSchema>;

/** A server's settings as stored; unreadable ones make every channel private. */
export const ServerSettingsSchema = z.object({
	privateChannelIds: z
		.array(z.unknown())
		.transform((ids) => ids.filter((id): id is string => typeof id === 'string'))
		.catch([EVERY_CHANNEL]),
	/**
	 * Category mode: up to 5 names; the summary tool then asks for one text per category, and the
	 * category map replaces the previous one. Empty: one free-form summary.
	 */
	summaryCategories: z.array(z.string()).catch([])
});

/** A server's settings (`getServerSettings`, `setServerSettings`): its private channels and summary categories. */
export type ServerSettings = z.output<typeof ServerSettingsSchema>;

/** What `setUserSettings` may change. */
export const UserSettingsPatchSchema = z.object({
	privacyLevel: z.enum(PrivacyLevel).optional(),
	crossServerOptIn: z.boolean().optional()
});

/** What `setUserSettings` may change; a field left out keeps its value. */
export type UserSettingsPatch = z.input<typeof UserSettingsPatchSchema>;

/** What `setServerSettings` may change. */
export const ServerSettingsPatchSchema = z.object({
	privateChannelIds: z.array(z.string().min(1).max(64)).max(10_000).optional(),
	summaryCategories: z
		.array(z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a category name is 1 to 32 lower-case letters, digits or "_", starting with a letter'))
		.max(5, 'at most 5 summary categories')
		.refine((names) => new Set(names).size === names.length, 'summary categories must be distinct')
		.optional()
});

/** What `setServerSettings` may change; a field left out keeps its value. */
export type ServerSettingsPatch = z.input<typeof ServerSettingsPatchSchema>;
