import { z } from 'zod';
import { PrivacyLevel } from '../schemas/types';

/**
 * What a stored value must look like to be used, by key. A value written by a bug, a hand edit or
 * another schema version is never trusted: the store reads it as missing (and the next write of the key
 * replaces it), or drops only its broken parts (a message of a chunk, a listing of a directory), so
 * one damaged value costs what it held and never a crash. Two exceptions fail safe for privacy: a
 * member's settings that cannot be read make them FULL, a server's make every channel private.
 */

/** Latest time a stored or incoming timestamp may hold (9999-12-31T23:59:59.999Z): any later one has no date. */
export const LATEST_TIME = 253_402_300_799_999;

/** In `privateChannelIds`: every channel of the server is private (what unreadable server settings read as). */
export const EVERY_CHANNEL = '*';

const Time = z.number().finite().min(0).max(LATEST_TIME);
const Text = z.string();
const Ids = z.array(z.string());

/**
 * The elements of an array that match `item`, the others dropped; a value that is not an array fails.
 * `plain`, when given, accepts at a glance the shape the engine writes (zod decides the rest): an archive
 * chunk or a directory holds hundreds of them, read on every turn.
 */
function validItems(item: z.ZodType, plain?: (value: unknown) => boolean) {
	return z.array(z.unknown()).transform((items) => items.filter((value) => plain?.(value) || item.safeParse(value).success));
}

/** The entries of a record whose values match `value`, the others dropped; a value that is not an object fails. `plain` as for {@link validItems}. */
function validEntries(value: z.ZodType, plain?: (value: unknown) => boolean) {
	return z
		.record(z.string(), z.unknown())
		.transform((record) => Object.fromEntries(Object.entries(record).filter(([, field]) => plain?.(field) || value.safeParse(field).success)));
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
const nullableString = (value: unknown) => value === null || typeof value === 'string';
const isTime = (value: unknown) => typeof value === 'number' && value >= 0 && value <= LATEST_TIME;

/** A stored message exactly as the engine writes it (StoredMessage's schema, checked by hand). */
function isPlainMessage(value: unknown): boolean {
	return (
		isObject(value) &&
		typeof value.id === 'string' &&
		value.id.length > 0 &&
		(value.role === 'user' || value.role === 'persona') &&
		optionalString(value.authorId) &&
		optionalString(value.authorName) &&
		typeof value.text === 'string' &&
		isTime(value.ts) &&
		optionalString(value.personaId)
	);
}

/** A directory listing exactly as the engine writes it (ScopeListing's schema, checked by hand). */
function isPlainListing(value: unknown): boolean {
	return (
		isObject(value) &&
		typeof value.key === 'string' &&
		(value.scope === 'user' || value.scope === 'server') &&
		typeof value.serverId === 'string' &&
		typeof value.channelId === 'string' &&
		nullableString(value.parentChannelId) &&
		nullableString(value.personaId) &&
		nullableString(value.lineageId) &&
		typeof value.lastUpdated === 'number' &&
		typeof value.expiresAt === 'number'
	);
}

const isStrings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A digest line exactly as the engine writes it (DigestLine's schema, checked by hand). */
function isPlainDigestLine(value: unknown): boolean {
	return (
		isObject(value) &&
		typeof value.text === 'string' &&
		isStrings(value.sourceIds) &&
		isTime(value.ts) &&
		(value.kind === 'event' || value.kind === 'collapsed') &&
		(value.authorIds === undefined || isStrings(value.authorIds))
	);
}

/**
 * A short-term entry exactly as the engine writes it, without a background summary (ShortTermEntry's schema,
 * checked by hand): it is read on every turn and every reply, and zod's copy of it is most of that read's cost.
 */
function isPlainEntry(value: unknown): boolean {
	return (
		isObject(value) &&
		(value.scope === 'user' || value.scope === 'server') &&
		nullableString(value.userId) &&
		typeof value.serverId === 'string' &&
		typeof value.channelId === 'string' &&
		nullableString(value.parentChannelId) &&
		nullableString(value.personaId) &&
		nullableString(value.lineageId) &&
		Array.isArray(value.messages) &&
		value.messages.every(isPlainMessage) &&
		nullableString(value.summary) &&
		(value.categories === null || (isObject(value.categories) && Object.values(value.categories).every((text) => typeof text === 'string'))) &&
		isTime(value.lastUpdated) &&
		Number.isFinite(value.turnsSinceRefresh) &&
		(value.digest === undefined || value.digest === null || (Array.isArray(value.digest) && value.digest.every(isPlainDigestLine))) &&
		value.backgroundSummary === undefined
	);
}

const StoredMessage = z.looseObject({
	id: z.string().min(1),
	role: z.enum(['user', 'persona']),
	authorId: z.string().optional(),
	authorName: z.string().optional(),
	text: Text,
	ts: Time,
	personaId: z.string().optional()
});

const DigestLine = z.looseObject({ text: Text, sourceIds: Ids, ts: Time, kind: z.enum(['event', 'collapsed']), authorIds: Ids.optional() });

const BackgroundSummary = z.looseObject({
	text: Text,
	sourceIds: Ids,
	authorIds: Ids,
	coveredThrough: z.number(),
	model: z.string(),
	inputTokens: z.number(),
	outputTokens: z.number(),
	costUsd: z.number(),
	createdAt: z.number(),
	stale: z.boolean()
});

const ShortTermEntry = z.looseObject({
	scope: z.enum(['user', 'server']),
	userId: z.string().nullable(),
	serverId: z.string(),
	channelId: z.string(),
	parentChannelId: z.string().nullable().catch(null),
	personaId: z.string().nullable(),
	lineageId: z.string().nullable().catch(null),
	messages: validItems(StoredMessage, isPlainMessage),
	summary: z.string().nullable().catch(null),
	categories: z.record(z.string(), z.string()).nullable().catch(null),
	lastUpdated: Time,
	turnsSinceRefresh: z.number().finite().catch(0),
	digest: validItems(DigestLine).nullish().catch(null),
	backgroundSummary: BackgroundSummary.optional().catch(undefined)
});

// A listing decides what surfaces where (its channel and parent against the private ones): a doubtful one is dropped whole.
const ScopeListing = z.looseObject({
	key: z.string(),
	scope: z.enum(['user', 'server']),
	serverId: z.string(),
	channelId: z.string(),
	parentChannelId: z.string().nullish(),
	personaId: z.string().nullish(),
	lineageId: z.string().nullish(),
	lastUpdated: z.number(),
	expiresAt: z.number()
});

const ArchiveHead = z.looseObject({
	chunks: z.number().int().min(0),
	count: z.number().min(0),
	epoch: z.number(),
	first: z.number().int().min(0).optional()
});

const UserSettings = z.looseObject({
	privacyLevel: z.enum(PrivacyLevel).catch(PrivacyLevel.FULL),
	crossServerOptIn: z.boolean().catch(false),
	clearedBefore: z.number().optional().catch(undefined),
	erasedBefore: z.number().optional().catch(undefined),
	fullUntil: z.number().optional().catch(undefined)
});

const ServerSettings = z.looseObject({
	privateChannelIds: z
		.array(z.unknown())
		.transform((ids) => ids.filter((id): id is string => typeof id === 'string'))
		.catch([EVERY_CHANNEL]),
	summaryCategories: z.array(z.string()).catch([])
});

const UserProfile = z.looseObject({
	preferences: z.record(z.string(), z.string()),
	notes: z.array(z.string()),
	tags: z.array(z.string()),
	updatedAt: z.number()
});

const Topic = z.looseObject({ title: z.string(), note: z.string(), updatedAt: z.number() });

/** An archive's marker (`archive:<scope>:seen:<id>`, value 1) may look like any archive key, since a message id may hold ":". */
function orMarker(shape: z.ZodType) {
	return z.union([z.literal(1), shape]);
}

/** Key patterns; the first that matches gives the shape. */
const SHAPES: [RegExp, z.ZodType][] = [
	[/^shortterm:/, ShortTermEntry],
	[/^archive:.*:chunk:\d+$/, orMarker(validItems(StoredMessage, isPlainMessage))],
	[/^archive:.*:head$/, orMarker(ArchiveHead)],
	[/^archive:.*:tombstones$/, orMarker(validEntries(z.number()))],
	[/^index:(?:user|server|channel):/, validEntries(ScopeListing, isPlainListing)],
	[/^index:author:/, validEntries(z.looseObject({ count: z.number(), lastTs: z.number() }))],
	[/^settings:user:/, UserSettings],
	[/^settings:server:/, ServerSettings],
	[/^ltm:profile:/, UserProfile],
	[/^ltm:topics:/, validEntries(Topic)],
	[/^registry:/, z.record(z.string(), z.unknown())],
	[/^sweep:lease$/, z.looseObject({ owner: z.string(), at: z.number() })]
];

/** What an unreadable value of `key` reads as: nothing, except settings, which fail safe for privacy. */
export function unreadableValue(key: string): unknown {
	if (key.startsWith('settings:user:')) return { privacyLevel: PrivacyLevel.FULL, crossServerOptIn: false };
	if (key.startsWith('settings:server:')) return { privateChannelIds: [EVERY_CHANNEL], summaryCategories: [] };
	return undefined;
}

/** `data` as the engine may use it (see the top of this file); archive markers and keys of no known shape pass as they are. */
export function readStoredValue(key: string, data: unknown): unknown {
	if (key.startsWith('shortterm:') && isPlainEntry(data)) return data;
	const shape = SHAPES.find(([pattern]) => pattern.test(key))?.[1];
	if (!shape) return data;
	const parsed = shape.safeParse(data);
	return parsed.success ? parsed.data : unreadableValue(key);
}
