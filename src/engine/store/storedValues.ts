import { z } from 'zod';
import {
	ArchiveChunkSchema,
	ArchiveHeadSchema,
	ArchiveLocationSchema,
	ArchiveMarker,
	AuthorListingsSchema,
	ChannelArchiveListingsSchema,
	ContextSourcesRecordSchema,
	EVERY_CHANNEL,
	ForgottenMessagesSchema,
	LeftMembersSchema,
	ListingsSchema,
	PendingPurgeSchema,
	PrivacyLevel,
	RegistryBucketSchema,
	ServerSettingsSchema,
	ShortTermEntrySchema,
	StoredTopicsSchema,
	SweepLeaseSchema,
	TombstonesSchema,
	UserProfileSchema,
	UserSettingsSchema
} from '../schemas';
import { isPlainChunk, isPlainEntry, isPlainListings } from './plainValues';

/*
 * What a stored value must look like to be used, by key. A value written by a bug, a hand edit or another
 * schema version is never trusted: the store reads it as missing (and the next write of the key replaces
 * it), or drops only its broken parts (a message of a chunk, a listing of a directory), so one damaged
 * value costs what it held and never a crash. Three exceptions fail safe for privacy: a member's settings
 * that cannot be read make them FULL, a server's make every channel private, and a deleted message's record keeps it out.
 */

/** An archive's marker (`archive:<scope>:seen:<id>`, see ArchiveMarker) may look like any archive key, since a message id may hold ":". */
function orMarker(shape: z.ZodType) {
	return z.union([
		z.literal(ArchiveMarker.archived),
		z.literal(ArchiveMarker.editedAway),
		z.literal(ArchiveMarker.removed),
		ArchiveLocationSchema,
		shape
	]);
}

/** Key patterns; the first that matches gives the shape, and for the shapes read on every reply a check at a glance (plainValues.ts). */
const SHAPES: [RegExp, z.ZodType, ((value: unknown) => boolean)?][] = [
	[/^shortterm:/, ShortTermEntrySchema, isPlainEntry],
	[/^archive:.*:chunk:\d+$/, orMarker(ArchiveChunkSchema), isPlainChunk],
	[/^archive:.*:head$/, orMarker(ArchiveHeadSchema)],
	[/^archive:.*:tombstones$/, orMarker(TombstonesSchema)],
	[/^index:(?:user|server|channel):/, ListingsSchema, isPlainListings],
	[/^index:author:/, AuthorListingsSchema],
	[/^archives:/, ChannelArchiveListingsSchema],
	[/^forgotten:/, ForgottenMessagesSchema],
	[/^gone:/, z.number()],
	[/^left:/, LeftMembersSchema],
	[/^purge:server:/, PendingPurgeSchema],
	[/^settings:user:/, UserSettingsSchema],
	[/^settings:server:/, ServerSettingsSchema],
	[/^ltm:profile:/, UserProfileSchema],
	[/^ltm:topics:/, StoredTopicsSchema],
	[/^sources:/, ContextSourcesRecordSchema],
	[/^registry:/, RegistryBucketSchema],
	[/^sweep:lease$/, SweepLeaseSchema]
];

/** What an unreadable value of `key` reads as: nothing, except settings, which fail safe for privacy. */
export function unreadableValue(key: string): unknown {
	if (key.startsWith('settings:user:')) return { privacyLevel: PrivacyLevel.FULL, crossServerOptIn: false };
	if (key.startsWith('settings:server:')) return { privateChannelIds: [EVERY_CHANNEL], summaryCategories: [] };
	// A deleted message whose record cannot be read stays left out, until the record's own expiry removes it.
	if (key.startsWith('gone:')) return Number.MAX_SAFE_INTEGER;
	return undefined;
}

/**
 * `data` as the engine may use it (see the top of this file); archive markers and keys of no known shape pass as
 * they are. A value of the wrong shape is told to `onDamaged`.
 */
export function readStoredValue(key: string, data: unknown, onDamaged?: (key: string, reason: 'wrong shape') => void): unknown {
	const found = SHAPES.find(([pattern]) => pattern.test(key));
	if (!found) return data;
	const [, shape, plain] = found;
	if (plain?.(data)) return data;
	const parsed = shape.safeParse(data);
	if (parsed.success) return parsed.data;
	onDamaged?.(key, 'wrong shape');
	return unreadableValue(key);
}
