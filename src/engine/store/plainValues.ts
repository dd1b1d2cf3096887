import { LATEST_TIME } from '../schemas';

/*
 * The shapes read on every turn and every reply (short-term entries, directory listings, archived messages),
 * accepted at a glance when they are exactly what the engine writes, before zod is asked. Zod copies every
 * value it parses, and that garbage is what the reply's tail latency is made of (docs/benchmarks.md, "Measured
 * choices in the code").
 * Each check accepts only values its zod schema in schemas/stored.ts parses to an equal value (no unknown key,
 * nothing out of range), and test/engine/plain-values.test.ts holds them to that; anything else goes to zod.
 */

type Fields = Record<string, unknown>;

// A record whose JSON names an own `__proto__` key is left to zod, which would read that key as the prototype.
const isObject = (value: unknown): value is Fields =>
	typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '__proto__');
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
const nullableString = (value: unknown) => value === null || typeof value === 'string';
const isTime = (value: unknown) => typeof value === 'number' && value >= 0 && value <= LATEST_TIME;
const isStrings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Whether `value` has no key outside `known`. */
function onlyKeys(value: Fields, known: ReadonlySet<string>): boolean {
	for (const key in value) if (!known.has(key)) return false;
	return true;
}

const MESSAGE_KEYS = new Set(['id', 'role', 'authorId', 'authorName', 'text', 'ts', 'personaId', 'replyTo', 'replyToAuthorId']);

/** A stored message exactly as the engine writes it. */
export function isPlainMessage(value: unknown): boolean {
	return (
		isObject(value) &&
		typeof value.id === 'string' &&
		value.id.length > 0 &&
		(value.role === 'user' || value.role === 'persona') &&
		optionalString(value.authorId) &&
		optionalString(value.authorName) &&
		typeof value.text === 'string' &&
		isTime(value.ts) &&
		optionalString(value.personaId) &&
		optionalString(value.replyTo) &&
		optionalString(value.replyToAuthorId) &&
		onlyKeys(value, MESSAGE_KEYS)
	);
}

const DIGEST_LINE_KEYS = new Set(['text', 'sourceIds', 'ts', 'lastTs', 'kind', 'authorIds']);

function isPlainDigestLine(value: unknown): boolean {
	return (
		isObject(value) &&
		typeof value.text === 'string' &&
		isStrings(value.sourceIds) &&
		isTime(value.ts) &&
		(value.lastTs === undefined || isTime(value.lastTs)) &&
		(value.kind === 'event' || value.kind === 'collapsed') &&
		(value.authorIds === undefined || isStrings(value.authorIds)) &&
		onlyKeys(value, DIGEST_LINE_KEYS)
	);
}

const ENTRY_KEYS = new Set([
	'scope',
	'userId',
	'serverId',
	'channelId',
	'parentChannelId',
	'personaId',
	'lineageId',
	'messages',
	'summary',
	'categories',
	'lastUpdated',
	'turnsSinceRefresh',
	'digest'
]);

/** A short-term entry exactly as the engine writes it, without a background summary (rare, left to zod). */
export function isPlainEntry(value: unknown): boolean {
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
		typeof value.turnsSinceRefresh === 'number' &&
		Number.isFinite(value.turnsSinceRefresh) &&
		(value.digest === undefined || value.digest === null || (Array.isArray(value.digest) && value.digest.every(isPlainDigestLine))) &&
		onlyKeys(value, ENTRY_KEYS)
	);
}

const LISTING_KEYS = new Set(['key', 'scope', 'serverId', 'channelId', 'parentChannelId', 'personaId', 'lineageId', 'lastUpdated', 'expiresAt']);

/** A directory listing exactly as the engine writes it. */
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
		Number.isFinite(value.lastUpdated) &&
		Number.isFinite(value.expiresAt) &&
		onlyKeys(value, LISTING_KEYS)
	);
}

/** A directory (entry key → listing) exactly as the engine writes it. */
export function isPlainListings(value: unknown): boolean {
	return isObject(value) && Object.values(value).every(isPlainListing);
}

/** An archive chunk exactly as the engine writes it. */
export function isPlainChunk(value: unknown): boolean {
	return Array.isArray(value) && value.every(isPlainMessage);
}
