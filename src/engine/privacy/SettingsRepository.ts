import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { MemoryError } from '../errors';
import { Keys } from '../store/keys';
import type { MemoryStore } from '../store/MemoryStore';
import { PrivacyLevel, type ServerSettings, type UserSettings } from '../schemas/types';

export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = Object.freeze({ privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: false });

const UserSettingsPatch = z.object({
	privacyLevel: z.enum(PrivacyLevel).optional(),
	crossServerOptIn: z.boolean().optional()
});

const ServerSettingsPatch = z.object({
	privateChannelIds: z.array(z.string().min(1).max(64)).max(10_000).optional(),
	summaryCategories: z
		.array(z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a category name is 1 to 32 lower-case letters, digits or "_", starting with a letter'))
		.max(5, 'at most 5 summary categories')
		.refine((names) => new Set(names).size === names.length, 'summary categories must be distinct')
		.optional()
});

/** Ids are Discord snowflakes in practice; anything printable and short is accepted. */
export const IdSchema = z
	.string()
	.min(1)
	.max(64)
	.regex(/^[\w.-]+$/, 'only letters, digits, "_", "." and "-"');

export function assertId(name: string, value: unknown): asserts value is string {
	const parsed = IdSchema.safeParse(value);
	if (!parsed.success)
		throw new MemoryError('INVALID_INPUT', `${name} must be an id (1 to 64 letters, digits, "_", "." or "-"); got ${JSON.stringify(value)}.`);
}

/**
 * Per-user and per-server settings, read through a short cache: shards sharing one store see a
 * change made elsewhere within `cacheMs`, and the writing process sees it at once.
 */
export class SettingsRepository {
	private readonly users: LRUCache<string, UserSettings>;
	private readonly servers: LRUCache<string, ServerSettings>;

	public constructor(
		private readonly store: MemoryStore,
		cacheMs = 5_000
	) {
		this.users = new LRUCache({ max: 20_000, ttl: cacheMs });
		this.servers = new LRUCache({ max: 10_000, ttl: cacheMs });
	}

	public async user(userId: string): Promise<UserSettings> {
		return (await this.manyUsers(userId ? [userId] : []))[0] ?? { ...DEFAULT_USER_SETTINGS };
	}

	/** Settings of many users in one round trip, in the order given. */
	public async manyUsers(userIds: readonly string[]): Promise<UserSettings[]> {
		const missing = [...new Set(userIds.filter((id) => !this.users.has(id)))];
		if (missing.length > 0) {
			const stored = await this.store.getMany<UserSettings>(missing.map(Keys.userSettings));
			// A write made while the read was out (a barrier set by an erasure) is newer than what the read saw.
			missing.forEach((id, index) => this.users.has(id) || this.users.set(id, { ...DEFAULT_USER_SETTINGS, ...stored[index] }));
		}
		return userIds.map((id) => this.users.get(id) ?? { ...DEFAULT_USER_SETTINGS });
	}

	public async setUser(userId: string, patch: Partial<UserSettings>, now: number): Promise<UserSettings> {
		assertId('userId', userId);
		const parsed = UserSettingsPatch.safeParse(patch);
		if (!parsed.success) throw new MemoryError('INVALID_INPUT', `Invalid user settings: ${z.prettifyError(parsed.error)}`);
		const next = await this.store.update<UserSettings>(Keys.userSettings(userId), (current) => {
			const value: UserSettings = { ...DEFAULT_USER_SETTINGS, ...current, ...stripUndefined(parsed.data) };
			// Leaving FULL: what they wrote while invisible stays out of memory, even when a later history carries it.
			if (current?.privacyLevel === PrivacyLevel.FULL && value.privacyLevel !== PrivacyLevel.FULL) value.fullUntil = now;
			return { value };
		});
		this.users.set(userId, next!);
		return { ...next! };
	}

	/**
	 * Records that capture must never store again a message of `userId` written at or before `at`
	 * (`clearedBefore` after `/session clear`, `erasedBefore` after `/session clear all`).
	 */
	public async setBarrier(userId: string, field: 'clearedBefore' | 'erasedBefore', at: number): Promise<UserSettings> {
		const next = await this.store.update<UserSettings>(Keys.userSettings(userId), (current) => ({
			value: { ...DEFAULT_USER_SETTINGS, ...current, [field]: Math.max(at, current?.[field] ?? at) }
		}));
		this.users.set(userId, next!);
		return { ...next! };
	}

	public async server(serverId: string): Promise<ServerSettings> {
		const cached = this.servers.get(serverId);
		if (cached) return cached;
		const stored = await this.store.get<ServerSettings>(Keys.serverSettings(serverId));
		const settings = { privateChannelIds: stored?.privateChannelIds ?? [], summaryCategories: stored?.summaryCategories ?? [] };
		this.servers.set(serverId, settings);
		return settings;
	}

	public async setServer(serverId: string, patch: Partial<ServerSettings>): Promise<ServerSettings> {
		assertId('serverId', serverId);
		const parsed = ServerSettingsPatch.safeParse(patch);
		if (!parsed.success) throw new MemoryError('INVALID_INPUT', `Invalid server settings: ${z.prettifyError(parsed.error)}`);
		const next = await this.store.update<ServerSettings>(Keys.serverSettings(serverId), (current) => ({
			value: { privateChannelIds: [], summaryCategories: [], ...current, ...stripUndefined(parsed.data) }
		}));
		this.servers.set(serverId, next!);
		return { ...next! };
	}
}

/** The newest moment at or before which capture drops this user's messages; -Infinity when none. */
export function forgottenBefore(settings: UserSettings): number {
	return Math.max(
		settings.clearedBefore ?? Number.NEGATIVE_INFINITY,
		settings.erasedBefore ?? Number.NEGATIVE_INFINITY,
		settings.fullUntil ?? Number.NEGATIVE_INFINITY
	);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
